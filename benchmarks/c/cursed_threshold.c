/*
 * Cursed!? (solo) played by the `threshold` policy at its defaults, in plain C: the speed reference of
 * issue 30 for the item-heavy policy.
 *
 * Written from the rules as this project documents them (docs/rules/cursed.md and the card table of
 * cursedsim/games/cursed/rules.py; the policy as described in cursedsim/games/cursed/policies.py and
 * reference_policies.ThresholdPolicy, k = 2 and the default item thresholds), with the reference engine
 * (reference.py) as the spec for details and the default rule options only: 8 souls win, one starting
 * item (a Mimic! is fought), 1/6 weapons chosen with their kind (1 ranged, 6 melee), the Spear both
 * kinds, overshoot on the first attack only, a bust discards the weapon, chest loot from the shuffled
 * discard pile, Mimic! power 4 and a soul, Big Turkey Dinner moves 3 cards, Whetstone and Frenzy Potion
 * chosen after the reveal, items between fights, the pile checked before a chest, damage from the top.
 * It shares no code with the numba kernel and does not reproduce its random draws: each game has its
 * own xoshiro256** stream seeded by splitmix64 from (seed, game index), so only the distribution of
 * games is the same.
 *
 * Build and run (benchmarks/bench_c_reference.py --game cursed does both):
 *     gcc -O2 -march=x86-64 -I. -o cursed_threshold cursed_threshold.c
 *     ./cursed_threshold GAMES 1 [SEED]
 * (PLAYERS is always 1: Cursed!? is a solo game; the argument keeps the command line of
 * verflucht_baseline.c.) Output, one JSON line: games, players, seed, wins, damage_sum,
 * damage_sq_sum (the cards discarded from the pile as damage, over all games: the frame's
 * `damage_taken`), souls_sum, souls_sq_sum (captured souls at the end, over all games), seconds (the
 * game loop only), games_per_s.
 *
 * Representation: card ids 0-29 (card c is copy c % 3 of unique card c / 3, as in rules.py). The draw
 * pile, whose order matters (draws and damage from the top, Big Turkey Dinner under the bottom), is a
 * 32-slot ring of card ids; every other zone is a 32-bit set of card ids: the discard pile's order never
 * matters, because every random use of it (a chest, a Big Turkey Dinner) shuffles it first, so a
 * shuffle-and-take-the-top is a uniformly random card of the set. Held items, Backpack weapons, the
 * weapons and items of a fight are sets too (copies of a unique card are interchangeable; where the
 * policy names a copy it is the lowest id). Nothing is allocated in the game loop.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rng.h" /* splitmix64 seeding, xoshiro256**, below(): shared by the C references */

#define N_CARDS 30
#define WIN_SOULS 8
#define MIMIC_POWER 4
#define SHIELD_BLOCK 3
#define WHETSTONE_BONUS 3
#define TURKEY_CARDS 3

/* threshold's defaults (policies.THRESHOLD_PARAMS) */
#define K 2
#define TURKEY_PILE 5
#define SCROLL_POWER 10
#define SHIELD_DUE 2
#define SMOKE_DUE 4
#define SCROLL_DUE 3

/* traits */
enum { NONE, EXPLODES, FLYING, ETHEREAL, EVASIVE, TOUGH_SKIN };
/* weapon kinds (bits) */
#define MELEE 1
#define RANGED 2
/* items: the item code is the unique card */
enum { SOUL_CRYSTAL, BIG_TURKEY_DINNER, SMOKE_BOMB, BEWITCHING_RELIC, SCROLL_OF_PURGE_LIFE, SHIELD,
       WHETSTONE, FRENZY_POTION, LARGE_BACKPACK, MIMIC };

/* The card table, by unique card u = 0..9 (docs/rules/cursed.md, "Component facts"). */
static const int MONSTER_POWER[10] = {5, 7, 8, 8, 9, 9, 10, 10, 11, 11};
static const int MONSTER_TRAIT[10] = {EXPLODES, FLYING, ETHEREAL, NONE, NONE, EVASIVE, TOUGH_SKIN, NONE, NONE, NONE};
static const int MONSTER_CHEST[10] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
static const int WEAPON_POWER[10] = {5, 5, 4, 4, 3, 3, 2, 2, 1, 1}; /* a 1/6 weapon: the low value */
static const int WEAPON_KINDS[10] = {MELEE, RANGED, MELEE, RANGED, MELEE | RANGED, MELEE, MELEE, RANGED, RANGED, MELEE};
/* u 8 and 9 (Throwing Daggers, Dagger) are the 1/6 weapons */
#define IS_SPLIT(u) ((u) >= 8)
#define SPLIT_HIGH 6

typedef uint32_t set_t;

/* The cards of unique card u, and the cards whose best own weapon value (6 for a 1/6 weapon) is v. */
static inline set_t cards_of(int u) { return (set_t)7 << (3 * u); }
#define BEST6 ((set_t)0x3F << 24) /* u 8, 9 */
#define BEST5 ((set_t)0x3F << 0)  /* u 0, 1 */
#define BEST4 ((set_t)0x3F << 6)  /* u 2, 3 */
#define BEST3 ((set_t)0x3F << 12) /* u 4, 5 */
#define BEST2 ((set_t)0x3F << 18) /* u 6, 7 */

/* ------------------------------------------------------------------ sets of cards */

static inline int lowest(set_t s) { return __builtin_ctz(s); }

static inline int count(set_t s) {
    int n = 0;
    for (; s; s &= s - 1) n++;
    return n;
}

/* The k-th (0-based) card of `s` in id order. */
static inline int kth(set_t s, int k) {
    for (; k > 0; k--) s &= s - 1;
    return lowest(s);
}

/* The card of `s` with the highest best own value, ties the lowest id (Backpack target, PLAY). */
static inline int best_card(set_t s) {
    if (s & BEST6) return lowest(s & BEST6);
    if (s & BEST5) return lowest(s & BEST5);
    if (s & BEST4) return lowest(s & BEST4);
    if (s & BEST3) return lowest(s & BEST3);
    return lowest(s);
}

/* The cards whose best own value is at most `gap`. */
static inline set_t best_at_most(int gap) {
    set_t s = 0;
    if (gap >= 2) s |= BEST2;
    if (gap >= 3) s |= BEST3;
    if (gap >= 4) s |= BEST4;
    if (gap >= 5) s |= BEST5;
    if (gap >= 6) s |= BEST6;
    return s;
}

/* ------------------------------------------------------------------ one game */

typedef struct {
    rng_t *r;
    uint8_t ring[32]; /* the draw pile: bottom at ring[lo], top at ring[(lo + n - 1) & 31] */
    int lo, n;
    set_t discard;
    int n_discard;
    set_t items;  /* held items (never a Mimic!) */
    set_t stored; /* Large Backpack weapons */
    int souls;
    int damage;
    int over; /* the game has ended */
} game_t;

enum { OPEN, CAPTURE, STOP_CLOSE, SMOKE };

static inline int pop_top(game_t *g) { return g->ring[(g->lo + --g->n) & 31]; }
static inline void push_top(game_t *g, int card) { g->ring[(g->lo + g->n++) & 31] = (uint8_t)card; }
static inline void push_bottom(game_t *g, int card) {
    g->lo = (g->lo - 1) & 31;
    g->ring[g->lo] = (uint8_t)card;
    g->n++;
}

static void shuffle_pile(game_t *g) {
    for (int i = g->n - 1; i > 0; i--) {
        int j = (int)below(g->r, (uint32_t)(i + 1));
        int a = (g->lo + i) & 31, b = (g->lo + j) & 31;
        uint8_t t = g->ring[a];
        g->ring[a] = g->ring[b];
        g->ring[b] = t;
    }
}

static inline void to_discard(game_t *g, set_t cards) {
    g->discard |= cards;
    g->n_discard = count(g->discard);
}

/* A uniformly random card out of the (not empty) discard pile: its top card after a shuffle. */
static inline int take_random_discard(game_t *g) {
    int card = kth(g->discard, (int)below(g->r, (uint32_t)g->n_discard));
    g->discard &= ~((set_t)1 << card);
    g->n_discard--;
    return card;
}

/* Big Turkey Dinner: the discard pile shuffled, its top min(3, size) cards under the draw pile (a
 * uniformly random ordered draw of them; their order under the pile is exchangeable). */
static inline void eat_turkey(game_t *g) {
    int k = g->n_discard < TURKEY_CARDS ? g->n_discard : TURKEY_CARDS;
    for (int i = 0; i < k; i++) push_bottom(g, take_random_discard(g));
}

/* The lowest held card of item `item`, or -1. */
static inline int held(const game_t *g, int item) {
    set_t s = g->items & cards_of(item);
    return s ? lowest(s) : -1;
}

static int fight(game_t *g, int monster, int is_mimic);

/* A card taken item side up: a Mimic! is fought at once, any other card is held. */
static inline void gain_item(game_t *g, int card) {
    if (card / 3 == MIMIC)
        fight(g, card, 1);
    else
        g->items |= (set_t)1 << card;
}

/* The items between fights: threshold uses a Big Turkey Dinner while the pile holds at most 5 cards
 * and the discard pile is not empty; the Turkeys used go to the discard pile when the window closes.
 * Then the pile check: returns 0 (and ends the game) when the pile is empty. */
static int pile_check(game_t *g) {
    set_t used = 0;
    int c;
    while (g->n <= TURKEY_PILE && g->n_discard > 0 && (c = held(g, BIG_TURKEY_DINNER)) >= 0) {
        g->items &= ~((set_t)1 << c);
        used |= (set_t)1 << c;
        eat_turkey(g);
    }
    if (used) to_discard(g, used);
    if (g->n == 0) {
        g->over = 1;
        return 0;
    }
    return 1;
}

/* Fights `monster` (a round's monster, or a Mimic!: power 4, no trait) until it closes; returns 1 when
 * the soul is captured. Sets g->over at a final monster or the winning soul. */
static int fight(game_t *g, int monster, int is_mimic) {
    int u = monster / 3;
    int power = is_mimic ? MIMIC_POWER : MONSTER_POWER[u];
    int trait = is_mimic ? NONE : MONSTER_TRAIT[u];
    int total = 0, attacks = 0, trait_spent = 0, blocked = 0;
    set_t weapons = 0, used = 0;
    int close = OPEN;
#define SPEND(card) (g->items &= ~((set_t)1 << (card)), used |= (set_t)1 << (card))

    while (close == OPEN) {
        int gap = power - total;
        int due = gap - blocked > 0 ? gap - blocked : 0;
        int c;
        /* 1. Large Backpack: the discard card with the best own value */
        if (g->n_discard > 0 && (c = held(g, LARGE_BACKPACK)) >= 0) {
            SPEND(c);
            int target = best_card(g->discard);
            g->discard &= ~((set_t)1 << target);
            g->n_discard--;
            g->stored |= (set_t)1 << target;
            continue;
        }
        /* 2. Big Turkey Dinner when the pile is low */
        if (g->n <= TURKEY_PILE && g->n_discard > 0 && (c = held(g, BIG_TURKEY_DINNER)) >= 0) {
            SPEND(c);
            eat_turkey(g);
            continue;
        }
        /* 3. Scroll of Purge Life on a big monster before the first attack, or when a stop is fatal */
        if ((c = held(g, SCROLL_OF_PURGE_LIFE)) >= 0 && ((attacks == 0 && power >= SCROLL_POWER) || due > g->n)) {
            SPEND(c);
            close = CAPTURE;
            break;
        }
        /* 4. attack while the gap is above k: a fitting Backpack weapon, else a draw */
        int can_attack = !(trait == EXPLODES && trait_spent);
        int card = -1;
        if (can_attack && gap > K) {
            set_t fitting = g->stored & (attacks == 0 ? ~(set_t)0 : best_at_most(gap));
            if (fitting) {
                card = best_card(fitting);
                g->stored &= ~((set_t)1 << card);
            } else if (g->n > 0) {
                card = pop_top(g);
            }
        }
        if (card >= 0) {
            /* the attack: threshold's choices, then the rules */
            int w = card / 3;
            int first = attacks == 0; /* overshoot="first_attack": an attack over the power captures */
            int base, kinds;
            if (IS_SPLIT(w)) {
                base = (SPLIT_HIGH <= gap || first) ? SPLIT_HIGH : WEAPON_POWER[w];
                kinds = base == SPLIT_HIGH ? MELEE : RANGED; /* choose_kind: 6 melee, 1 ranged */
            } else {
                base = WEAPON_POWER[w];
                kinds = WEAPON_KINDS[w];
            }
#define CAPTURES(v) ((v) == gap || ((v) > gap && first))
            int relic = 0, whet = 0, frenzy = 0;
            if (!CAPTURES(base)) {
                int relic_card = held(g, BEWITCHING_RELIC), whet_card = held(g, WHETSTONE);
                int frenzy_card = first ? held(g, FRENZY_POTION) : -1;
                if (relic_card >= 0 && CAPTURES(MONSTER_POWER[w])) {
                    relic = 1;
                    SPEND(relic_card);
                } else if (whet_card >= 0 && CAPTURES(base + WHETSTONE_BONUS)) {
                    whet = 1;
                    SPEND(whet_card);
                } else if (frenzy_card >= 0 && CAPTURES(base * 2)) {
                    frenzy = 1;
                    SPEND(frenzy_card);
                }
            }
            attacks++;
            if (relic) base = MONSTER_POWER[w];
            int value = base + (whet ? WHETSTONE_BONUS : 0);
            if (frenzy) value *= 2;
            int ignores = relic || frenzy;
            int cancelled = 0;
            if (!trait_spent && !ignores) {
                int fits = (trait == FLYING && (kinds & MELEE)) || (trait == TOUGH_SKIN && (kinds & RANGED)) ||
                           (trait == ETHEREAL && (base & 1)) || (trait == EVASIVE && !(base & 1));
                if (fits) trait_spent = cancelled = 1;
            }
            int new_total = total + (cancelled ? 0 : value);
            if (new_total > power && first) {
                weapons |= (set_t)1 << card;
                close = CAPTURE;
            } else if (total + value > power && (c = held(g, SOUL_CRYSTAL)) >= 0) {
                SPEND(c); /* threshold always spends the Soul Crystal */
                weapons |= (set_t)1 << card;
                close = CAPTURE;
            } else if (new_total > power) {
                to_discard(g, (set_t)1 << card); /* a bust: the weapon is discarded, the fight goes on */
            } else {
                weapons |= (set_t)1 << card;
                total = new_total;
                if (trait == EXPLODES && !ignores) trait_spent = 1;
                if (total == power) close = CAPTURE;
            }
            continue;
        }
        /* 5-7. at the stop: Shield, Smoke Bomb, Scroll of Purge Life by the damage due */
        if (due >= SHIELD_DUE && (c = held(g, SHIELD)) >= 0) {
            SPEND(c);
            blocked += SHIELD_BLOCK;
            continue;
        }
        if ((due >= SMOKE_DUE || due > g->n) && (c = held(g, SMOKE_BOMB)) >= 0) {
            SPEND(c);
            close = SMOKE;
            break;
        }
        if (due >= SCROLL_DUE && (c = held(g, SCROLL_OF_PURGE_LIFE)) >= 0) {
            SPEND(c);
            close = CAPTURE;
            break;
        }
        close = STOP_CLOSE; /* 8. */
    }
#undef SPEND
#undef CAPTURES

    if (close == SMOKE) { /* escape: the monster and weapons into the pile, shuffled; items discarded */
        to_discard(g, used);
        push_top(g, monster);
        for (set_t s = weapons; s; s &= s - 1) push_top(g, lowest(s));
        shuffle_pile(g);
        return 0;
    }
    int damage = 0;
    if (close == STOP_CLOSE) damage = power - total - blocked > 0 ? power - total - blocked : 0;
    if (damage > g->n) { /* the final monster: not captured, the game ends */
        g->over = 1;
        return 0;
    }
    set_t lost = 0;
    for (int i = 0; i < damage; i++) lost |= (set_t)1 << pop_top(g);
    g->damage += damage;
    to_discard(g, lost | used | weapons);
    if (++g->souls >= WIN_SOULS) g->over = 1;
    return 1;
}

/* Plays one game; returns 1 for a win. */
static int play_game(game_t *g) {
    g->lo = 0;
    g->n = N_CARDS;
    for (int i = 0; i < N_CARDS; i++) g->ring[i] = (uint8_t)i;
    shuffle_pile(g);
    g->discard = 0;
    g->n_discard = 0;
    g->items = g->stored = 0;
    g->souls = g->damage = g->over = 0;

    gain_item(g, pop_top(g)); /* the starting item */
    while (!g->over) {
        if (!pile_check(g)) break;
        int monster = pop_top(g);
        if (fight(g, monster, 0) && !g->over && MONSTER_CHEST[monster / 3]) {
            if (!pile_check(g)) break;
            if (g->n_discard > 0) gain_item(g, take_random_discard(g)); /* the chest */
        }
    }
    return g->souls >= WIN_SOULS;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s GAMES PLAYERS [SEED]   (PLAYERS: 1, Cursed!? is solo)\n", argv[0]);
        return 2;
    }
    long long games = atoll(argv[1]);
    int players = atoi(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 2026;
    if (games < 1 || players != 1) {
        fprintf(stderr, "GAMES must be >= 1 and PLAYERS 1 (Cursed!? is a solo game)\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long long wins = 0, damage_sum = 0, damage_sq = 0, souls_sum = 0, souls_sq = 0;
    rng_t r;
    game_t g;
    g.r = &r;
    for (long long i = 0; i < games; i++) {
        rng_seed(&r, seed, (uint64_t)i);
        wins += play_game(&g);
        damage_sum += g.damage;
        damage_sq += (long long)g.damage * g.damage;
        souls_sum += g.souls;
        souls_sq += (long long)g.souls * g.souls;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("{\"games\": %lld, \"players\": %d, \"seed\": %" PRIu64 ", \"wins\": %lld, \"damage_sum\": %lld, "
           "\"damage_sq_sum\": %lld, \"souls_sum\": %lld, \"souls_sq_sum\": %lld, \"seconds\": %.6f, "
           "\"games_per_s\": %.1f}\n",
           games, players, seed, wins, damage_sum, damage_sq, souls_sum, souls_sq, seconds,
           (double)games / seconds);
    return 0;
}
