"""Seats colver's agents at a table refereed elsewhere; runs in colver's virtualenv.

JSON lines on stdin, one answer line each, in colver's own encoding:
  {"cmd": "deal", "dealer": d, "hands": [[colver cards] x4], "seats": [1, 3],
   "spec": "...toml...", "seed": s}                    -> {"ok": true}
  {"cmd": "act", "seat": s}   -> {"action": a}  (the agent decides; the action is played)
  {"cmd": "step", "action": a} -> {"ok": true}  (another seat's action, played)
"""

import json
import sys

from colver import Agent, Env

env = None
agents = {}


def play(action):
    for agent in agents.values():
        agent.observe(env, action)
    env.step(action)


for line in sys.stdin:
    q = json.loads(line)
    if q["cmd"] == "deal":
        env = Env.deal_with_hands(q["dealer"], q["hands"])
        if "contract" in q:  # play only: the contract is given
            trump, value, team = q["contract"]
            env.set_contract(trump, value, team, 0)
            env.set_phase_playing()
        agents = {s: Agent(q["spec"], seat=s, seed=q["seed"] + s) for s in q["seats"]}
        for agent in agents.values():
            agent.init_deal(env)
        answer = {"ok": True}
    elif q["cmd"] == "act":
        seat = q["seat"]
        assert env.current_player() == seat, (env.current_player(), seat)
        action = agents[seat].action(env)
        play(action)
        answer = {"action": action}
    else:
        play(q["action"])
        answer = {"ok": True}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
