"""The RL Zoo's sac hyperparameters with ``ccgym/<Id>`` keys: ``--conf-file ccgym.zoo.sac``.

Read from the installed rl_zoo3's ``hyperparams/sac.yml`` at import.
"""

from ccgym.zoo import zoo_hyperparams

hyperparams = zoo_hyperparams("sac")
