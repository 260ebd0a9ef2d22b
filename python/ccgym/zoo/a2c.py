"""The RL Zoo's a2c hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.a2c``.

Read from the installed rl_zoo3's ``hyperparams/a2c.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("a2c")
