"""The RL Zoo's td3 hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.td3``.

Read from the installed rl_zoo3's ``hyperparams/td3.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("td3")
