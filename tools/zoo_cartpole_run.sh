#!/usr/bin/env bash
# The recorded RL Zoo run of docs/frameworks.md, "RL Zoo": PPO on CartPole-v1 with the
# Zoo's tuned hyperparameters (8 envs, 1e5 steps), three ways, one after the
# other in this shell, each timed, each model then evaluated on stock
# Gymnasium CartPole-v1 (20 deterministic episodes; the Zoo reports 500).
#   native : python -m ccgym.zoo train   (ccgym's native SB3 VecEnv)
#   dummy  : rl_zoo3.train --conf-file ccgym.zoo.ppo  (DummyVecEnv over ccgym envs)
#   stock  : rl_zoo3.train on gymnasium's CartPole-v1 (the Zoo as shipped)
# usage: tools/zoo_cartpole_run.sh OUT_DIR   (needs ccgym[zoo] installed)
set -euo pipefail
OUT=${1:?usage: $0 OUT_DIR}
mkdir -p "$OUT"
COMMON=(--algo ppo --seed 0 --num-threads 1 --eval-freq -1 --vec-env dummy)
run() {  # name, command...
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" --log-folder "$OUT/$name" > "$OUT/$name.log" 2>&1
  t1=$(date +%s.%N)
  echo "$name wall_s $(python -c "print(round($t1 - $t0, 1))")  $*"
}
run native python -m ccgym.zoo train --env CartPole-v1 "${COMMON[@]}"
run stock python -m rl_zoo3.train --env CartPole-v1 "${COMMON[@]}"
run dummy python -m rl_zoo3.train --env ccgym/CartPole-v1 --gym-packages ccgym \
  --conf-file ccgym.zoo.ppo "${COMMON[@]}"
python - "$OUT" <<'PY'
import glob, sys
import gymnasium as gym
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
torch.set_num_threads(1)
for name in ("native", "stock", "dummy"):
    (path,) = glob.glob(f"{sys.argv[1]}/{name}/ppo/*_1/*CartPole-v1.zip")
    model = PPO.load(path, device="cpu")
    env = gym.make("CartPole-v1")
    mean, std = evaluate_policy(model, env, n_eval_episodes=20, deterministic=True)
    print(f"{name} eval_mean {mean:.1f} std {std:.1f} ({path})")
PY
