"""The RL Zoo's dqn hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.dqn``.

Read from the installed rl_zoo3's ``hyperparams/dqn.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("dqn")
