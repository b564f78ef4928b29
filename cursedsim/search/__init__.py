"""Search agents over the step API (``cursedsim.step``): information-set MCTS as a policy of any side of
any game (``ismcts.py``, registered by ``policy.py``), and the play loop that runs such policies in the
runner's chunks (``cursedsim.step.play``)."""
