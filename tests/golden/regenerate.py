"""Regenerate tests/golden/fingerprints.json: the golden fingerprint (``cursedsim.fingerprint``) of every
preset below, which tests/test_golden_fingerprints.py checks.

Run it only in a commit that intentionally changes what games play (a rule, a policy, an outcome column
or its dtype), and say so in that commit's message; a change meant to keep behaviour (speed, compile
time, cache keys) must leave every digest as it is. It prints what changed and writes the file atomically.

    python tests/golden/regenerate.py            # recompute every preset, write the file
    python tests/golden/regenerate.py --check    # recompute, write nothing, exit 1 if a digest moved
    python tests/golden/regenerate.py --games village covens   # only those games' presets
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cursedsim.fingerprint import FINGERPRINT_VERSION, fingerprint, kernel_policies
from cursedsim.games import get_game, list_games
from cursedsim.sides import policy_label

PATH = Path(__file__).resolve().parent / "fingerprints.json"
SEED = 24
#: Games per preset (default ``N_GAMES_DEFAULT``): at most ~0.1 s of kernel time each (village's
#: random-against-random, the slowest, ~0.8 s), so the test of every preset stays at a few seconds once
#: the kernels are compiled.
N_GAMES = {"verflucht": 20_000, "cursed": 20_000, "covens": 5_000, "gifts": 2_000, "village": 1_000}
N_GAMES_DEFAULT = 2_000
#: Search policies, which play each game many times over, at a small budget and on fewer games:
#: policy name -> (parameters, games per preset).
SEARCH_PRESETS: dict[str, tuple[dict[str, float], int]] = {"rollout": ({"n": 2.0}, 1_000),
                                                           # Cursed!?'s exact fight DP: ~500 games/s cold
                                                           "optimal_fight": ({}, 1_000)}
#: A game's own parameters of a search preset, in place of SEARCH_PRESETS' (Cursed!?'s rollout leaves its
#: base, optimal_fight, only with a lead of margin 2 standard errors, which n=2 never reaches: at margin 0.5
#: the preset's search changes games).
GAME_SEARCH_PRESETS: dict[str, dict[str, dict[str, float]]] = {"cursed": {"rollout": {"n": 4.0, "margin": 0.5}}}
#: Games per search preset of a game where fewer suffice (village's rollout plays ~40 games/s at n=2;
#: Cursed!?'s replays each fight from its start at every decision).
SEARCH_GAMES = {"village": 200, "cursed": 300}
#: A game of sides plays every pairing of its sides' kernel policies when there are at most this many
#: pairings, else each side's policies against the other sides' defaults.
MAX_PAIRINGS = 25
#: Rule-option presets per game beyond the defaults: (policy or None for the default, options), each at
#: the game's default player count (every other player count is played with the default policies).
#: Options are grouped so that a few presets reach many branches.
OPTION_PRESETS: dict[str, list[tuple[Any, dict[str, Any]]]] = {
    # partial_items_before_seal changes nothing a built-in policy plays (none plans a partial banishment),
    # nor does drawer_last_turn for random and baseline: their presets would repeat the default digests
    "verflucht": [
        (None, {"voluntary_seal": False}),
        (None, {"seals": 1}),
        ("rollout", {"information": "team"}),
        ("smart", {"drawer_last_turn": False}),
        ("smart", {"partial_items_before_seal": True, "voluntary_seal": False, "drawer_last_turn": False,
                   "seals": 5}),
    ],
    "cursed": [
        (None, {"win_souls": 10, "play_on_after_win": True, "starting_items": 2, "starting_mimic": "redraw",
                "chest_loot": "draw_pile", "mimic_soul": False, "turkey_cards": 4}),
        ("counting", {"dagger_value": "choose", "spear_kind": "choose", "overshoot": "zero_total",
                      "bust": "soul_lost"}),
        (None, {"dagger_value": "split", "overshoot": "bust", "mimic_power": 6, "damage_from": "bottom"}),
        (None, {"item_timing": "before_draw", "items_between_fights": False, "empty_pile_before_chest": False,
                "whetstone_in_play": True, "ignoring_attack_spends_trait": True, "parity_includes_whetstone": True,
                "smoke_bomb_returns_items": True, "final_monster_captures": True}),
        (None, {"starting_item": "mimic"}),
        ("optimal_fight", {"dagger_value": "choose", "spear_kind": "choose", "overshoot": "zero_total",
                           "bust": "soul_lost", "smoke_bomb_returns_items": True, "item_timing": "before_draw"}),
        # the rollout's replay through the rare paths (items before a draw, the Whetstone in play, the Smoke
        # Bomb's shuffle with its items, a chest from the pile, two starting items)
        ("rollout", {"item_timing": "before_draw", "whetstone_in_play": True, "smoke_bomb_returns_items": True,
                     "chest_loot": "draw_pile", "starting_items": 2, "starting_mimic": "redraw"}),
    ],
    "covens": [
        (None, {"disabled_spell": "darkness"}),
        (None, {"rituals": False}),
        (None, {"darkness_backs": "nature", "spell_icons": "curses_mixed", "wild_icons": "both", "fake_casts": True}),
        (None, {"shuffle_timing": "census_and_arrival", "short_deck_arrival": "deal_none", "ask_empty": False,
                "passage_targets": "any_town", "nature_restart": False}),
        (None, {"doom_empty": True, "doom_second_pick": "any_town", "townsfolk_to": "any_town",
                "discard_order": "ascending", "max_rounds": 12}),
        ({"hunter": "largest_hand", "town": "bluff"}, {"spell_icons": "all_mixed", "shuffle_timing": "never"}),
    ],
    # riposte_chains changes nothing with the base deck, whose ripostes cannot answer one another
    "gifts": [
        (None, {"eliminated_cards": "random_positions", "eliminated_hand": "gifts_only"}),
        (None, {"cacarma": "return", "cacarma_vs_inevitable": True, "bonus_is_the_gift": False}),
        (None, {"mugging_cost": "if_taken", "mugging_take": "chosen", "focus_seat": "0"}),
        (None, {"without_card": "Mugging", "max_turns": 30}),
    ],
    "village": [
        # the 2-player mode (both sides played): the options its players meet
        ({"wizard": "planner", "monster": "glutton"},
         {"night_arrival_chooser": "monster", "wizard_move_alone": True, "plethora_at_market": False,
          "panic_threshold": "above_level", "unmatched_meal": "no_change"}),
        ({"wizard": "planner", "monster": "glutton"},
         {"quiet_night_adjusts": True, "full_stomach": "stop", "start_location_visited": False,
          "guard_movement_loss": "carry_over"}),
        # the 0-player mode (both automata): the automata's open points
        (None, {"automata_targets": "rabid_cards", "rabid_path": "stop_at_villagers", "rabid_stop_count": "slots",
                "rabid_pasture": "most_sheep"}),
        (None, {"pw_next_ingredient": "next_only", "pw_mix_counts": "matching", "pw_full_unmatched": "mix_cure",
                "pw_steal_amount": "best_expectation", "pw_adjacent_steal_skip": "as_printed"}),
        (None, {"pw_buy_adjacent": "any_district", "pw_distance": "crossings", "pw_unpaid_crossing": "move_anyway",
                "pw_card_count": "at_turn"}),
        # solo modes with the Rabid Monster and with the Possessed Wizard
        ({"wizard": "planner", "monster": "rabid"},
         {"rabid_spent_actions": "free", "rabid_get_busy": "ignored", "unlisted_cards": "blank"}),
        # O16's third reading: a spent action's card discarded, not hunted (moves paid with an action)
        ({"wizard": "planner", "monster": "rabid"}, {"rabid_spent_actions": "discard_card", "wizard_move_alone": True}),
        ({"wizard": "possessed", "monster": "glutton"}, {"unlisted_cards": "copies", "max_turns": 40}),
    ],
}


def policy_presets(game) -> list[Any]:
    """Every built-in kernel policy of ``game`` (a game of sides: every pairing of its sides' policies,
    or each side's against the others' defaults when there are too many pairings)."""
    if not game.sides:
        return kernel_policies(game)
    names = game.side_names
    defaults = {side: game.default_policy_of(side) for side in names}
    # a search policy plays against the other sides' defaults only (SEARCH_PRESETS), not in the pairings
    choices = [[name for name in kernel_policies(game, side) if name not in SEARCH_PRESETS] for side in names]
    searches = [{**defaults, side: name} for side in names for name in kernel_policies(game, side)
                if name in SEARCH_PRESETS]
    pairings = [dict(zip(names, combo)) for combo in itertools.product(*choices)]
    if len(pairings) <= MAX_PAIRINGS:
        return pairings + searches
    chosen = []
    for side, policies in zip(names, choices):
        for name in policies:
            pairing = {**defaults, side: name}
            if pairing not in chosen:
                chosen.append(pairing)
    return chosen + searches


def default_policy(game) -> Any:
    """The game's default policy, named explicitly (per side in a game of sides)."""
    if not game.sides:
        return game.default_policy
    return {side: game.default_policy_of(side) for side in game.side_names}


def preset_id(game_name: str, players: int, policy: Any, options: dict[str, Any],
              params: dict[str, float] | None = None) -> str:
    """A readable unique name: ``game/p<players>/<policy label>[:param=value,...][/option=value,...]``."""
    text = f"{game_name}/p{players}/{policy_label(policy)}"
    if params:   # a game of sides: side -> parameters
        text += ":" + ",".join(f"{key}={value:g}" if not isinstance(value, dict) else
                               ",".join(f"{key}.{name}={v:g}" for name, v in value.items())
                               for key, value in params.items())
    if options:
        text += "/" + ",".join(f"{key}={json.dumps(value)}" for key, value in options.items())
    return text


def presets(games: list[str]) -> list[dict[str, Any]]:
    """The presets of ``games`` (without digests), in a fixed order."""
    out = []
    for name in games:
        game = get_game(name)
        players = game.default_players if game.default_players is not None else game.min_players
        n_games = N_GAMES.get(name, N_GAMES_DEFAULT)
        cells: list[tuple[int, Any, dict[str, Any]]] = [(players, policy, {}) for policy in policy_presets(game)]
        cells += [(count, default_policy(game), {}) for count in range(game.min_players, game.max_players + 1)
                  if count != players]
        cells += [(players, default_policy(game) if policy is None else policy, dict(options))
                  for policy, options in OPTION_PRESETS.get(name, [])]
        for count, policy, options in cells:
            params, games = search_params(policy, n_games, name)
            if params:
                games = min(games, SEARCH_GAMES.get(name, games))
            preset = {"id": preset_id(name, count, policy, options, params), "game": name, "players": count,
                      "policy": policy, "options": options, "n_games": games, "seed": SEED}
            if params:
                preset["params"] = params
            out.append(preset)
    ids = [preset["id"] for preset in out]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise SystemExit(f"duplicate presets: {', '.join(sorted(duplicates))}")
    return out


def search_params(policy: Any, n_games: int, game: str | None = None) -> tuple[dict[str, Any], int]:
    """(parameters, games) of a preset: a search policy's from SEARCH_PRESETS (``game``'s own from
    GAME_SEARCH_PRESETS; a game of sides: side -> parameters for each searching side), else none and
    ``n_games``."""
    if isinstance(policy, str):
        params, games = SEARCH_PRESETS.get(policy, ({}, n_games))
        return GAME_SEARCH_PRESETS.get(game, {}).get(policy, params), games
    searching = {side: SEARCH_PRESETS[name] for side, name in policy.items() if name in SEARCH_PRESETS}
    if not searching:
        return {}, n_games
    return ({side: params for side, (params, _) in searching.items()},
            min(games for _, games in searching.values()))


def compute(preset: dict[str, Any]) -> str:
    """The digest of one preset."""
    return fingerprint(preset["game"], preset["n_games"], players=preset["players"], policy=preset["policy"],
                       options=preset["options"], params=preset.get("params"), seed=preset["seed"])


def load(path: Path) -> dict[str, dict[str, Any]]:
    """The committed presets by id (empty when the file does not exist yet)."""
    if not path.exists():
        return {}
    return {preset["id"]: preset for preset in json.loads(path.read_text())["presets"]}


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any digest moved")
    parser.add_argument("--games", nargs="+", choices=list_games(), help="only these games (others kept as they are)")
    parser.add_argument("--path", type=Path, default=PATH, help="the fingerprints file (default: %(default)s)")
    args = parser.parse_args(argv)
    games = args.games or list_games()
    old = load(args.path)
    new: dict[str, dict[str, Any]] = {i: p for i, p in old.items() if p["game"] not in games}
    changed, added = [], []
    for name in games:
        start = time.perf_counter()
        todo = presets([name])
        for preset in todo:
            preset["digest"] = compute(preset)
            before = old.get(preset["id"])
            if before is None:
                added.append(preset["id"])
            elif before["digest"] != preset["digest"] or {k: v for k, v in before.items() if k != "digest"} != {
                    k: v for k, v in preset.items() if k != "digest"}:
                changed.append((preset["id"], before["digest"], preset["digest"]))
            new[preset["id"]] = preset
        print(f"{name}: {len(todo)} presets in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    removed = [i for i in old if i not in new]
    for preset_name, before, after in changed:
        print(f"changed  {preset_name}: {before[:16]} -> {after[:16]}")
    for preset_name in added:
        print(f"added    {preset_name}")
    for preset_name in removed:
        print(f"removed  {preset_name}")
    print(f"{len(new)} presets: {len(changed)} changed, {len(added)} added, {len(removed)} removed")
    moved = bool(changed or added or removed)
    if args.check:
        return 1 if moved else 0
    if moved or not args.path.exists():
        order = {name: k for k, name in enumerate(list_games())}
        position = {preset_name: k for k, preset_name in enumerate(new)}
        listed = sorted(new.values(), key=lambda p: (order.get(p["game"], len(order)), position[p["id"]]))
        document = {"version": FINGERPRINT_VERSION,
                    "about": "Golden fingerprints (cursedsim.fingerprint) checked by "
                             "tests/test_golden_fingerprints.py; regenerate with tests/golden/regenerate.py only "
                             "in a commit that intends to change behaviour (docs/architecture.md, 'fingerprint').",
                    "presets": listed}
        write_atomically(args.path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
