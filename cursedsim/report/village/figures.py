"""The So, You've Been Cursed. report's six figures: one function per figure, each returning a
:class:`~cursedsim.report.figures.ReportFigure` with its reading computed from the numbers it shows.
Every figure names the board it was played on (the RECONSTRUCTED default board, or the file given with
``--board``)."""

from __future__ import annotations

import numpy as np

from cursedsim.games.village import rules
from cursedsim.report.content import percent_ci, points_ci
from cursedsim.report.data import ALPHA
from cursedsim.report.figures import ReportFigure, TextTable, error_bars, join_words, new_figure, panels, pct, points
from cursedsim.report.village.data import VillageData

#: One colour per mode in every figure of the report.
MODE_COLORS = {rules.AUTOMATA: "#7a1f2b", rules.RABID_MONSTER: "#1b9e77", rules.POSSESSED_WIZARD: "#d95f02",
               rules.DUEL: "#7570b3"}
#: The modes in words.
MODE_WORDS = {rules.AUTOMATA: "0-player game", rules.RABID_MONSTER: "Wizard player's solo game (Rabid Monster)",
              rules.POSSESSED_WIZARD: "Monster player's solo game (Possessed Wizard)", rules.DUEL: "2-player duel"}


def board_note(data: VillageData) -> str:
    """``on the RECONSTRUCTED board name@digest``."""
    kind = "RECONSTRUCTED board" if data.board_reconstructed else "board"
    return f"on the {kind} {data.board_label}"


def mode_pairing(data: VillageData, mode: str) -> str:
    """``0-player game (possessed vs rabid)``."""
    wizard, monster = data.plan.pairing(mode)
    return f"{MODE_WORDS[mode]} ({wizard} vs {monster})"


# ---------------------------------------------------------------- 1. every pairing

def pairing_matrix(data: VillageData) -> ReportFigure:
    """The Wizard's win rate of every Wizard policy against every Monster policy, as a grid of cells."""
    table = data.pairings
    wizards = list(dict.fromkeys(table["wizard"]))
    monsters = list(dict.fromkeys(table["monster"]))
    grid = np.full((len(wizards), len(monsters)), np.nan)
    figure = new_figure(2.0 + 1.9 * len(monsters), 1.4 + 0.9 * len(wizards))
    ax = figure.subplots()
    for r in table.itertuples():
        i, j = wizards.index(r.wizard), monsters.index(r.monster)
        grid[i, j] = 100 * r.wizard_rate
    ax.imshow(grid, cmap="RdBu", vmin=0, vmax=100, aspect="auto")
    for r in table.itertuples():
        i, j = wizards.index(r.wizard), monsters.index(r.monster)
        ax.text(j, i, f"{100 * r.wizard_rate:.1f}%\n[{100 * r.wizard_ci_low:.1f}, {100 * r.wizard_ci_high:.1f}]\n"
                      f"{r.mode}", ha="center", va="center", fontsize=8,
                color="white" if abs(grid[i, j] - 50) > 30 else "black")
    ax.set_xticks(range(len(monsters)), monsters)
    ax.set_yticks(range(len(wizards)), wizards)
    ax.set_xlabel("Monster policy")
    ax.set_ylabel("Wizard policy")
    ax.set_title("Wizard win % [Wilson 95%], mode")
    parts = []
    for mode, wizard, monster in data.plan.pairings:
        row = table[(table["wizard"] == wizard) & (table["monster"] == monster)]
        if len(row):
            r = row.iloc[0]
            parts.append(f"{pct(r['wizard_rate'])} in the {mode_pairing(data, mode)}")
    best = table.loc[table["wizard_rate"].idxmax()]
    worst = table.loc[table["wizard_rate"].idxmin()]
    reading = (f"The Wizard wins {join_words(parts)}; across all pairings from {pct(worst['wizard_rate'])} "
               f"({worst['wizard']} vs {worst['monster']}) to {pct(best['wizard_rate'])} ({best['wizard']} vs "
               f"{best['monster']}), {board_note(data)}.")
    rows = [[f"{r.wizard} vs {r.monster}", r.mode, percent_ci(r.wizard_rate, r.wizard_ci_low, r.wizard_ci_high),
             percent_ci(r.monster_rate, r.monster_ci_low, r.monster_ci_high), f"{100 * r.unfinished:.2f}",
             f"{r.mean_turns:.1f}"] for r in table.itertuples()]
    text = TextTable("Every pairing", ["pairing", "mode", "Wizard win % [95% CI]", "Monster win % [95% CI]",
                                       "unfinished %", "mean turns"], rows,
                     f"Wilson 95% intervals; the three shares add up to the games; {board_note(data)} (every table "
                     "names it: columns board, board_reconstructed).")
    about = (f"{data.n_games:,} games per pairing, {board_note(data)}. The pairing decides the mode: possessed + "
             "rabid is the 0-player game, a player's policy against an automaton that solo game, two players' "
             "policies the duel. Colour and first line: the Wizard's win rate; second line: its 95% Wilson "
             "interval; the Monster wins the rest but the unfinished games (at the turn cap).")
    return ReportFigure("pairings", "Win rates of every pairing", about, figure, reading, tables=[text])


# ---------------------------------------------------------------- 2. game length

def game_length(data: VillageData) -> ReportFigure:
    """The distribution of game length in the pairing of each mode (share of games per number of turns)."""
    lengths, summary = data.lengths, data.length_summary
    figure = new_figure(7.5, 3.6)
    ax = panels(figure, 1)[0]
    parts = []
    for mode, wizard, monster in data.plan.pairings:
        part = lengths[(lengths["wizard"] == wizard) & (lengths["monster"] == monster)].sort_values("turns")
        s = summary[(summary["wizard"] == wizard) & (summary["monster"] == monster)]
        if not len(part):
            continue
        ax.step(part["turns"], 100 * part["share"], where="mid", color=MODE_COLORS[mode],
                label=f"{mode} ({wizard} vs {monster})")
        s = s.iloc[0]
        parts.append(f"median {s['median']} turns in the {MODE_WORDS[mode]} (10th-90th percentile {s['p10']}-"
                     f"{s['p90']}, {100 * s['unfinished']:.1f}% unfinished)")
    ax.set_xlabel("turns (both sides' turns counted)")
    ax.set_ylabel("share of games (%)")
    ax.legend(fontsize=8)
    reading = f"Games last: {join_words(parts)}; {board_note(data)}."
    rows = [[f"{r.wizard} vs {r.monster}", r.mode, f"{r.mean_turns:.1f} ({r.turns_se:.2f})", str(r.p10), str(r.median),
             str(r.p90), str(r.max), f"{100 * r.unfinished:.2f}"] for r in summary.itertuples()]
    text = TextTable("Game length of every pairing", ["pairing", "mode", "mean turns (se)", "p10", "median", "p90",
                                                      "longest", "unfinished %"], rows,
                     f"Unfinished: games stopped at the turn cap (option max_turns); {board_note(data)}.")
    about = (f"Share of games per number of turns in the pairing standing for each mode ({data.n_games:,} games "
             f"each, {board_note(data)}); every pairing's distribution is in tables/game_length.csv.")
    return ReportFigure("game_length", "Game length per mode", about, figure, reading, tables=[text])


# ---------------------------------------------------------------- 3. Panic effects

def panic_effects(data: VillageData) -> ReportFigure:
    """Per mode: the share of games in which each Panic effect fired (left) and its first turn (right)."""
    panic = data.panic
    figure = new_figure(11.0, 3.8)
    left, right = panels(figure, 2, sharey=False)
    labels, parts = [], []
    k = 0
    for mode, wizard, monster in data.plan.pairings:
        part = panic[(panic["wizard"] == wizard) & (panic["monster"] == monster)]
        for r in part.itertuples():
            labels.append(f"{r.title}\n({mode})")
            share = 100 * r.share
            left.barh(k, share, color=MODE_COLORS[mode])
            left.errorbar(share, k, xerr=error_bars(share, 100 * r.ci_low, 100 * r.ci_high), fmt="none",
                          ecolor="0.2", capsize=2)
            if np.isfinite(r.first_turn_mean):
                right.plot(r.first_turn_mean, k, "o", color=MODE_COLORS[mode])
                right.plot(r.first_turn_median, k, "|", ms=10, color="0.2")
            k += 1
        if len(part):
            fired = part[part["share"] > 0]
            parts.append(f"in the {MODE_WORDS[mode]} " + (join_words(
                [f"{r.title} fires in {pct(r.share)} of games (from level {r.from_level}, first on turn "
                 f"{r.first_turn_median:g} at the median)" for r in fired.itertuples()]) if len(fired) else
                "no effect fires"))
    for ax in (left, right):
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.invert_yaxis()
    right.tick_params(labelleft=False)
    left.set_xlabel("games in which it applied (%), Wilson 95%")
    right.set_xlabel("first turn it applied (dot: mean, bar: median)")
    reading = f"{'; '.join(parts)}; {board_note(data)}."
    about = (f"Each mode's pairing ({data.n_games:,} games, {board_note(data)}). The Panic effects are printed on "
             "the Village board side the mode uses (the Wizard side in the duel and the Wizard's solo game, the "
             "Possessed Wizard side in the other two); an effect applies in the Wizard's turns while Panic is at "
             "or above its level (the board's thresholds are reconstructed). Left: the share of games in which it "
             "applied at least once; right: the first turn it applied, over those games.")
    return ReportFigure("panic_effects", "Which Panic effects fire, and when", about, figure, reading)


# ---------------------------------------------------------------- 4. player policies against the automata

def player_vs_automaton(data: VillageData) -> ReportFigure:
    """Each player policy in the place of its side's automaton, against the same opponent on the same
    games: the paired change of that side's win rate."""
    adv = data.advantage
    figure = new_figure(8.5, 1.2 + 0.45 * max(len(adv), 1))
    ax = panels(figure, 1)[0]
    labels = []
    for k, r in enumerate(adv.itertuples()):
        d = 100 * r.diff
        color = "#1b9e77" if r.side == rules.WIZARD else "#d95f02"
        ax.errorbar(d, k, xerr=error_bars(d, 100 * r.ci_low, 100 * r.ci_high), fmt="o", color=color,
                    mfc=color if r.survives else "white", capsize=3)
        labels.append(f"{r.side}: {r.policy} for {r.automaton}\nvs {r.opponent}")
    ax.axvline(0, color="0.3", lw=1)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("that side's win % with the policy − with the automaton (points), paired")
    parts = []
    for side, policy in (("wizard", "planner"), ("monster", "glutton")):
        rows = adv[(adv["side"] == side) & (adv["policy"] == policy)]
        for r in rows.itertuples():
            parts.append(f"{policy} in place of {r.automaton} against {r.opponent}: {points(r.diff)} points "
                         f"({pct(r.rate_automaton)} -> {pct(r.rate_policy)})")
    surviving = int(adv["survives"].sum()) if len(adv) else 0
    reading = (f"{'; '.join(parts) or 'no player policy played'}; {surviving} of {len(adv)} changes survive Holm's "
               f"adjustment at {ALPHA:g}; {board_note(data)}.")
    rows = [[f"{r.side}: {r.policy} for {r.automaton} vs {r.opponent}", percent_ci(r.rate_automaton,
             r.ci_low_automaton, r.ci_high_automaton), percent_ci(r.rate_policy, r.ci_low_policy, r.ci_high_policy),
             points_ci(r.diff, r.ci_low, r.ci_high), f"{r.p_holm:.3g}"] for r in adv.itertuples()]
    text = TextTable("A player's policy against its side's automaton",
                     ["change", "automaton win % [95% CI]", "policy win % [95% CI]", "difference (points)", "Holm p"],
                     rows, "Paired on the same seed and game indices (the same random streams; the board side and "
                           f"the decks follow the mode); paired t interval; Holm over every row; {board_note(data)}.")
    about = (f"The runs of figure 1 ({data.n_games:,} games each, {board_note(data)}), paired game by game: one "
             "side's automaton replaced by a player's policy, the other side unchanged. Filled: survives Holm.")
    return ReportFigure("player_vs_automaton", "How much the player policies beat the automata", about, figure,
                        reading, tables=[text])


# ---------------------------------------------------------------- 5. generated boards

def generated_boards(data: VillageData) -> ReportFigure:
    """The Wizard's win rate in each study mode on the base board and on every generated board."""
    table = data.generated
    modes = list(data.plan.study_modes)
    figure = new_figure(8.0, 3.6)
    ax = panels(figure, 1)[0]
    parts = []
    for k, mode in enumerate(modes):
        wizard, monster = data.plan.pairing(mode)
        part = table[(table["wizard"] == wizard) & (table["monster"] == monster)]
        base = part[part["kind"] == "base"]
        gen = part[part["kind"] == "generated"]
        jitter = np.linspace(-0.25, 0.25, max(len(gen), 1))[:len(gen)]
        r = 100 * gen["wizard_rate"].to_numpy()
        ax.errorbar(k + jitter, r, yerr=error_bars(r, 100 * gen["wizard_ci_low"], 100 * gen["wizard_ci_high"]),
                    fmt="o", ms=4, color=MODE_COLORS[mode], alpha=0.7, capsize=1)
        if len(base):
            b = base.iloc[0]
            ax.plot([k - 0.35, k + 0.35], [100 * b["wizard_rate"]] * 2, color="0.1", lw=2)
        if len(gen):
            parts.append(f"{pct(gen['wizard_rate'].min())}-{pct(gen['wizard_rate'].max())} (median "
                         f"{pct(gen['wizard_rate'].median())}) in the {MODE_WORDS[mode]}" +
                         (f" against {pct(base.iloc[0]['wizard_rate'])} on the base board" if len(base) else ""))
    ax.axhline(50, color="0.5", ls="--", lw=1)
    ax.set_xticks(range(len(modes)), [f"{m}\n{' vs '.join(data.plan.pairing(m))}" for m in modes], fontsize=8)
    ax.set_ylabel("Wizard win % (Wilson 95%)")
    count = int((table["kind"] == "generated").sum() / max(len(modes), 1))
    reading = (f"On {count} generated boards the Wizard wins {join_words(parts) if parts else 'no game played'} "
               f"(base board: {data.board_tag}).")
    about = (f"{count} boards drawn by board.generate (seeds {data.plan.board_seed} on; every board constraint "
             "holds, everything else random), written to boards/ and played in each study mode's pairing "
             f"({data.n_games:,} games each). Dots: generated boards with their Wilson interval; black bar: the base "
             "board as its file is written (every board here plays its own track lengths: track_calibration="
             "\"board\"; figures 1-4 play the default board's calibrated lengths, O39); dashed: an even game. The spread says how much the reconstructed choices of the board (graph, "
             "houses, pastures, tracks) can move the balance.")
    return ReportFigure("generated_boards", "Sensitivity to the board: generated boards", about, figure, reading)


# ---------------------------------------------------------------- 6. track lengths

def track_lengths(data: VillageData) -> ReportFigure:
    """The Wizard's win rate against the Curse track's length (left) and the Cure track's (right), per
    study mode, with the base board's lengths marked and the balance point read off."""
    tracks, balance = data.tracks, data.balance
    figure = new_figure(11.0, 3.8)
    axes = panels(figure, 2)
    parts = []
    for ax, track in zip(axes, ("curse", "cure")):
        for mode in data.plan.study_modes:
            wizard, monster = data.plan.pairing(mode)
            part = tracks[(tracks["kind"] == track) & (tracks["wizard"] == wizard) &
                          (tracks["monster"] == monster)].sort_values("value")
            if not len(part):
                continue
            r = 100 * part["wizard_rate"].to_numpy()
            ax.errorbar(part["value"], r, yerr=error_bars(r, 100 * part["wizard_ci_low"],
                                                          100 * part["wizard_ci_high"]),
                        fmt="-o", ms=3, color=MODE_COLORS[mode], capsize=2, label=f"{mode} ({wizard} vs {monster})")
        ax.axhline(50, color="0.5", ls="--", lw=1)
        ax.axvline(data.track_lengths[track], color="0.2", ls=":", lw=1)
        ax.set_xlabel(f"{track.capitalize()} track length (spaces; dotted: the base board)")
        ax.set_title(f"{track.capitalize()} track")
    axes[0].set_ylabel("Wizard win % (Wilson 95%)")
    axes[0].legend(fontsize=7)
    for r in balance.itertuples() if len(balance) else ():
        where = (f"about {r.balance_length:.1f}" if r.balanced_in_range else
                 f"outside {r.shortest}-{r.longest} (Wizard {pct(r.wizard_rate_shortest)} at {r.shortest}, "
                 f"{pct(r.wizard_rate_longest)} at {r.longest})")
        parts.append(f"{r.track} length {where} in the {MODE_WORDS.get(r.mode, r.mode)} (base {r.base_length})")
    reading = (f"The Wizard wins half the games at a {join_words(parts) if parts else 'length not measured'}; "
               f"{board_note(data)} with its tracks changed one at a time.")
    about = (f"The base board ({data.board_tag}) with every side's Curse track (left) or Cure track (right) at "
             "other lengths, written to boards/ and played in each study mode's pairing "
             f"({data.n_games:,} games each); the base lengths ({data.track_lengths['curse']} and "
             f"{data.track_lengths['cure']}) are the base board as its file is written (rule option "
             "track_calibration=\"board\": a board file plays its own lengths, the calibrated ones of figures 1-4 "
             "belong to the default board alone, docs/rules/village.md O39). Dashed: an even game. The balance point "
             "(tables/balance_points.csv) is read by linear interpolation between the two lengths around the first "
             "crossing of 50%.")
    return ReportFigure("track_lengths", "Where the balance point lies: track lengths", about, figure, reading)


FIGURES = (pairing_matrix, game_length, panic_effects, player_vs_automaton, generated_boards, track_lengths)

__all__ = ["FIGURES", "MODE_COLORS", "MODE_WORDS", "board_note", "game_length", "generated_boards", "pairing_matrix",
           "panic_effects", "player_vs_automaton", "track_lengths"]
