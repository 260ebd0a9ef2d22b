"""The RL Zoo's ddpg hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.ddpg``.

Read from the installed rl_zoo3's ``hyperparams/ddpg.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("ddpg")
