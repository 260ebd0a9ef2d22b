"""``python -m ccgym.zoo train ...``: the RL Zoo's train on ccgym's native VecEnv."""

from ccgym.zoo import main

main()
