"""The RL Zoo's ppo hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.ppo``.

Read from the installed rl_zoo3's ``hyperparams/ppo.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("ppo")
