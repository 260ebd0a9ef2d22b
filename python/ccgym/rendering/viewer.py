"""The pygame window of ``render_mode="human"`` (``pip install "ccgym[render]"``)."""

from __future__ import annotations

import os

import gymnasium as gym
import numpy as np

PYGAME_HINT = 'pygame is not installed, run `pip install "ccgym[render]"`'

def _import_pygame():
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame
    except ImportError as e:
        raise gym.error.DependencyNotInstalled(PYGAME_HINT) from e
    return pygame


class Viewer:
    """A pygame window that shows frames at ``fps`` (render_mode="human")."""

    def __init__(self, width: int, height: int, fps: float, caption: str = "ccgym") -> None:
        pygame = _import_pygame()
        self._pygame = pygame
        pygame.display.init()
        pygame.display.set_caption(caption)
        self.screen = pygame.display.set_mode((width, height))
        self.clock = pygame.time.Clock()
        self.fps = fps

    def show(self, frame: np.ndarray) -> None:
        """Shows one (H, W, 3) frame and waits to keep ``fps``."""
        pg = self._pygame
        pg.surfarray.blit_array(self.screen, frame.transpose(1, 0, 2))
        pg.event.pump()
        self.clock.tick(self.fps)
        pg.display.flip()

    def close(self) -> None:
        """Closes the window."""
        self._pygame.display.quit()
        self._pygame.quit()


