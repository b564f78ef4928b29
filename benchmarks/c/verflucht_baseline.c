/*
 * Verflucht! played by the `baseline` policy, in plain C: the speed reference of issue 30.
 *
 * Written from the rules as this project documents them (docs/rules/verflucht.md; the policy as
 * described in cursedsim/games/verflucht/policies.py and reference_policies.BaselinePolicy), with
 * the default rule options only: Seals by player count (1: 3, 2-3: 4, 4-5: 5), voluntary_seal,
 * drawer_last_turn, no partial_items_before_seal. It shares no code with the numba kernel and does
 * not reproduce its random draws: each game has its own xoshiro256** stream seeded by splitmix64
 * from (seed, game index), so only the distribution of games is the same.
 *
 * Build and run (benchmarks/bench_c_reference.py does both):
 *     gcc -O2 -march=x86-64 -I. -o verflucht_baseline verflucht_baseline.c
 *     ./verflucht_baseline GAMES PLAYERS [SEED]
 * Output, one JSON line: games, players, wins, won_score_sum, won_score_sq_sum (the final score
 * of won games, for a second comparison), seconds (the game loop only), games_per_s.
 *
 * Representation: the display and each hand are 64-bit sets of values (bit v = value v, 1..40);
 * the face-down cards are an array of card codes (0-39 Creatures 1-40, 40-79 Items 1-40) of which
 * a draw takes a uniformly random one (swap with the last). Nothing is allocated in the game loop.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rng.h" /* splitmix64 seeding, xoshiro256**, below(): shared by the C references */

#define N_CARDS 80
#define FIRST_ITEM 40
#define DISPLAY_LIMIT 5
#define MAX_PLAYERS 5
#define MARGIN 3 /* baseline banishes voluntarily when the smallest Item >= c is at most c + 3 */

typedef uint64_t set_t;

/* ------------------------------------------------------------------ sets of values */

static inline set_t bit(int v) { return (set_t)1 << v; }
static inline int highest(set_t s) { return 63 - __builtin_clzll(s); }
static inline int lowest(set_t s) { return __builtin_ctzll(s); }
static inline set_t at_least(int v) { return ~(set_t)0 << v; } /* values >= v (1 <= v <= 63) */

/* Whether `s` holds more than `k` values (x86-64 without -mpopcnt has no popcount instruction). */
static inline int more_than(set_t s, int k) {
    for (int i = 0; i < k && s; i++) s &= s - 1;
    return s != 0;
}

static inline int total(set_t s) {
    int t = 0;
    while (s) {
        t += lowest(s);
        s &= s - 1;
    }
    return t;
}

/* ------------------------------------------------------------------ one game */

typedef struct {
    int players;
    int active;
    int seals_left;
    int n_down;
    uint8_t down[N_CARDS];
    set_t display;
    set_t hand[MAX_PLAYERS];
} table_t;

/* Baseline's payment for one Creature from `hand`: the smallest single Item >= value; else the pair
 * a < b with the smallest sum >= value (ties: the smaller a); 0 when neither exists. */
static inline set_t baseline_cover(set_t hand, int value) {
    set_t single = hand & at_least(value);
    if (single) return bit(lowest(single));
    /* every Item is below `value` here */
    set_t best = 0;
    int best_sum = 1000;
    for (set_t rest = hand; rest; rest &= rest - 1) {
        int a = lowest(rest);
        int need = value - a > a + 1 ? value - a : a + 1;
        set_t bs = hand & at_least(need);
        if (bs) {
            int b = lowest(bs);
            if (a + b < best_sum) {
                best_sum = a + b;
                best = bit(a) | bit(b);
            }
        }
    }
    return best;
}

/* Depth-first: can attackers[k..] be given to eligible players so that each one's whole-hand total
 * (`room`) covers the Creatures given to them? Records the player of each attacker in `who`. */
static int assign(const int *attackers, int n_att, int k, int *room, const int *order, int n_elig,
                  int *who) {
    if (k == n_att) return 1;
    int c = attackers[k];
    for (int i = 0; i < n_elig; i++) {
        int p = order[i];
        if (room[p] >= c) {
            room[p] -= c;
            who[k] = p;
            if (assign(attackers, n_att, k + 1, room, order, n_elig, who)) return 1;
            room[p] += c;
        }
    }
    return 0;
}

/* Break a Seal (the attackers go back among the face-down cards) or, with none left, lose. */
static inline int use_seal(table_t *t, set_t attackers) {
    if (t->seals_left == 0) return 0;
    t->seals_left--;
    t->display &= ~attackers;
    for (set_t rest = attackers; rest; rest &= rest - 1) t->down[t->n_down++] = (uint8_t)(lowest(rest) - 1);
    return 1;
}

/* Answer an attack as the baseline does, with the engine's rule that a Seal is refused while items
 * could banish every attacker and no green Seal is left. Returns 0 when the game is lost. */
static int resolve_attack(table_t *t, set_t attackers, int is_group) {
    int order[MAX_PLAYERS];
    int n_elig = is_group ? t->players : 1;
    for (int k = 0; k < n_elig; k++) order[k] = (t->active + k) % t->players;

    /* Each attacker, highest first, to the first eligible player who covers it. */
    set_t use[MAX_PLAYERS] = {0};
    set_t spent = 0; /* hands are disjoint, so one set of promised Items serves every player */
    int covered_all = 1;
    for (set_t rest = attackers; rest; rest &= ~bit(highest(rest))) {
        int c = highest(rest);
        int covered = 0;
        for (int k = 0; k < n_elig; k++) {
            int p = order[k];
            set_t pay = baseline_cover(t->hand[p] & ~spent, c);
            if (pay) {
                spent |= pay;
                use[p] |= pay;
                covered = 1;
                break;
            }
        }
        if (!covered) {
            covered_all = 0;
            break;
        }
    }
    if (covered_all) {
        t->display &= ~attackers;
        for (int k = 0; k < n_elig; k++) t->hand[order[k]] &= ~use[order[k]];
        return 1;
    }

    /* Some attacker is not covered: a Seal, if allowed (voluntary_seal: always while one is left). */
    if (t->seals_left > 0) return use_seal(t, attackers);

    /* No Seal left: is there a plan for all attackers (whole-hand totals)? If not, the game is lost. */
    int att[8], n_att = 0;
    for (set_t rest = attackers; rest; rest &= ~bit(highest(rest))) att[n_att++] = highest(rest);
    int room[MAX_PLAYERS] = {0}, who[8];
    for (int k = 0; k < n_elig; k++) room[order[k]] = total(t->hand[order[k]]);
    if (!assign(att, n_att, 0, room, order, n_elig, who)) return 0;

    /* The forced plan: each player spends Items highest first until they reach their Creatures' total. */
    for (int k = 0; k < n_elig; k++) {
        int p = order[k], need = 0;
        for (int i = 0; i < n_att; i++)
            if (who[i] == p) need += att[i];
        int paid = 0;
        while (paid < need) {
            int item = highest(t->hand[p]);
            t->hand[p] &= ~bit(item);
            paid += item;
        }
    }
    t->display &= ~attackers;
    return 1;
}

/* The active player's voluntary banishing: the highest display Creature c for which some Item lies in
 * c..c+MARGIN (then the smallest Item >= c is within the margin), with that Item; until none. */
static inline void voluntary_banishing(table_t *t) {
    set_t *hand = &t->hand[t->active];
    for (;;) {
        set_t h = *hand;
        if (!h || !t->display) return;
        set_t near = h;
        for (int d = 1; d <= MARGIN; d++) near |= h >> d;
        set_t within = t->display & near;
        if (!within) return;
        int c = highest(within);
        *hand &= ~bit(lowest(h & at_least(c)));
        t->display &= ~bit(c);
    }
}

/* Plays one game; returns the score of a won game (>= 0) or -1 for a loss. */
static int play_game(rng_t *r, int players) {
    table_t t;
    t.players = players;
    t.active = 0;
    t.seals_left = players == 1 ? 3 : players <= 3 ? 4 : 5;
    t.n_down = N_CARDS;
    for (int i = 0; i < N_CARDS; i++) t.down[i] = (uint8_t)i;
    t.display = 0;
    for (int p = 0; p < MAX_PLAYERS; p++) t.hand[p] = 0;

    while (t.n_down > 0) {
        /* draw: a uniformly random face-down card */
        uint32_t j = below(r, (uint32_t)t.n_down);
        int code = t.down[j];
        t.down[j] = t.down[--t.n_down];
        if (code >= FIRST_ITEM) {
            t.hand[t.active] |= bit(code - FIRST_ITEM + 1);
        } else {
            int v = code + 1;
            t.display |= bit(v);
            set_t attackers = 0;
            int is_group = 0;
            if (t.display & (bit(v - 1) | bit(v + 1))) { /* the run of consecutive values with v */
                int low = v, high = v;
                while (t.display & bit(low - 1)) low--;
                while (t.display & bit(high + 1)) high++;
                attackers = (at_least(low) & ~at_least(high + 1));
                is_group = 1;
            } else if (more_than(t.display, DISPLAY_LIMIT)) {
                attackers = bit(highest(t.display));
            }
            if (attackers && !resolve_attack(&t, attackers, is_group)) return -1;
        }
        voluntary_banishing(&t);
        if (t.n_down > 0 && ++t.active == players) t.active = 0;
    }
    /* Last turns: from the player after the drawer, the drawer last. */
    int drawer = t.active;
    for (int k = 1; k <= players; k++) {
        t.active = (drawer + k) % players;
        voluntary_banishing(&t);
    }
    /* Each green Seal left discards the lowest display Creature. */
    for (int s = 0; s < t.seals_left && t.display; s++) t.display &= t.display - 1;
    return total(t.display);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s GAMES PLAYERS [SEED]\n", argv[0]);
        return 2;
    }
    long long games = atoll(argv[1]);
    int players = atoi(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 2026;
    if (games < 1 || players < 1 || players > MAX_PLAYERS) {
        fprintf(stderr, "GAMES must be >= 1 and PLAYERS 1-%d\n", MAX_PLAYERS);
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long wins = 0, score_sum = 0, score_sq = 0;
    rng_t r;
    for (long long i = 0; i < games; i++) {
        rng_seed(&r, seed, (uint64_t)i);
        int score = play_game(&r, players);
        if (score >= 0) {
            wins++;
            score_sum += score;
            score_sq += (long long)score * score;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("{\"games\": %lld, \"players\": %d, \"seed\": %" PRIu64 ", \"wins\": %lld, \"won_score_sum\": %lld, "
           "\"won_score_sq_sum\": %lld, \"seconds\": %.6f, \"games_per_s\": %.1f}\n",
           games, players, seed, wins, score_sum, score_sq, seconds, (double)games / seconds);
    return 0;
}
