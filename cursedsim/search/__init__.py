"""Search agents over the step API (``cursedsim.step``): information-set MCTS as a policy of any side of
any game (``ismcts.py``; its PolicySpec and decision in ``policy.py``), the play loop that runs such
policies in the runner's chunks (``play.py``) and their turn logs (``replay.py``), and ``attach``
(``attach.py``), which the composition root (``cursedsim.compose``) applies to every game."""
