/*
 * Curses & Covens played by the `random` policy on both sides, in plain C: the speed reference of
 * issue 30.
 *
 * Written from the rules as this project documents them (docs/rules/covens.md, R1-R6 and "Decisions";
 * the `random` policies of cursedsim/games/covens/reference_policies.py: a uniform choice among the
 * legal actions at every decision), with the readable engine cursedsim/games/covens/reference.py as the
 * spec for every detail: which decisions are asked when, and the set of legal actions of each. Default
 * rule options only: rituals in the deck (27 cards), darkness_backs "passage" (tiles Growth/Doom,
 * Passage/Darkness, Nature/Despair), spell_icons "charms_mixed", wild_icons "one", fake_casts off,
 * shuffle_timing "arrival", short_deck_arrival "deal_what_there_is", ask_empty, passage_targets
 * "one_town", nature_restart, doom_empty off, doom_second_pick "skip", townsfolk_to "other_town",
 * discard_order "random", max_rounds 200, no disabled spell.
 *
 * It shares no code with the numba kernel and does not reproduce its random draws: each game has one
 * xoshiro256** stream (for the cards and both sides' decisions) seeded by splitmix64 from (seed, game
 * index), so only the distribution of games is the same. A random decision whose choice changes
 * nothing for random players (the census announcement) is still drawn, as the engine asks it.
 *
 * Build and run (benchmarks/bench_c_reference.py --game covens does both):
 *     gcc -O2 -march=x86-64 -I. -o covens_random covens_random.c
 *     ./covens_random GAMES PLAYERS [SEED]          (PLAYERS 4-6: one hunter, PLAYERS - 1 towns)
 * Output, one JSON line: games, players, towns, hunter_wins, town_wins, coven_wins (the towns' wins by
 * a coven at the census; the others by the hunter's second ritual), unfinished, rounds_sum,
 * rounds_sq_sum (the round each game ended in, R6.1), seconds (the game loop only), games_per_s,
 * rounds_per_s.
 *
 * Representation: card codes 0-8 suited witches (suit = code / 3), 9 the wild, 10 the fake, 11-23
 * townsfolk, 24-26 rituals; hands and captures are 32-bit sets (bit c = card c); the deck is a circular
 * queue of 32 slots (top at `head`, discards appended at the bottom). Nothing is allocated in the loop.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rng.h" /* splitmix64 seeding, xoshiro256**, below(): shared by the C references */

#define N_CARDS 27
#define WILD 9
#define FAKE 10
#define FIRST_FOLK 11
#define FIRST_RITUAL 24
#define MAX_TOWNS 5
#define MAX_ROUNDS 200
#define QUEUE 32 /* deck slots, a power of two above N_CARDS */

#define WILD_BIT (1u << WILD)
#define FAKE_BIT (1u << FAKE)
#define RITUAL_MASK (7u << FIRST_RITUAL)
#define FOLK_MASK (((1u << 13) - 1) << FIRST_FOLK)

/* spells (reference ids) */
enum { GROWTH, PASSAGE, NATURE, DOOM, DARKNESS, DESPAIR };
enum { LOVE, NATURE_SUIT, CRYSTAL };
enum { WINNER_HUNTER, WINNER_TOWN, WINNER_NONE };
enum { WIN_COVEN, WIN_RITUAL };

/* darkness_backs "passage": tile -> (charm side, curse side) */
static const int TILE_SPELL[3][2] = {{GROWTH, DOOM}, {PASSAGE, DARKNESS}, {NATURE, DESPAIR}};
/* spell_icons "charms_mixed": the two icon suits of each spell */
static const int ICONS[6][2] = {{LOVE, NATURE_SUIT}, {NATURE_SUIT, CRYSTAL}, {CRYSTAL, LOVE},
                                {LOVE, LOVE}, {NATURE_SUIT, NATURE_SUIT}, {CRYSTAL, CRYSTAL}};

typedef uint32_t set_t;

/* ------------------------------------------------------------------ card sets */

static inline int count(set_t s) { return __builtin_popcount(s); }

/* The k-th card (0-based, ascending code) of a non-empty set. */
static inline int kth(set_t s, int k) {
    while (k-- > 0) s &= s - 1;
    return __builtin_ctz(s);
}

static inline set_t suit_mask(int suit) { return 7u << (3 * suit); }

/* R2.2: 3 witches of one suit, the wild counting as any suit (never the fake). */
static inline int has_coven(set_t hand) {
    int wild = (hand & WILD_BIT) != 0;
    for (int s = 0; s < 3; s++)
        if (count(hand & suit_mask(s)) + wild >= 3) return 1;
    return 0;
}

/* R2.3: 2 distinct cards, one per icon; an icon takes its suit's witches or the wild (wild_icons
 * "one", fake_casts off). Both icons non-empty and not the same single card. */
static inline int can_cast(set_t hand, int spell) {
    set_t first = hand & (suit_mask(ICONS[spell][0]) | WILD_BIT);
    set_t second = hand & (suit_mask(ICONS[spell][1]) | WILD_BIT);
    if (!first || !second) return 0;
    return !(first == second && count(first) == 1);
}

/* ------------------------------------------------------------------ the game */

typedef struct {
    int towns;
    set_t hands[MAX_TOWNS];
    uint8_t deck[QUEUE]; /* circular queue: deck[(head + i) % QUEUE] is the i-th card from the top */
    int head, n_deck;
    int woods;
    set_t captured; /* true witches in front of the hunter */
    int fake_held;
    set_t rituals;
    int faces[3]; /* 0 charm up, 1 curse up */
    int winner;
    int win_type; /* how the towns won: WIN_COVEN or WIN_RITUAL */
    rng_t rng;
} game_t;

static inline int draw(game_t *g) {
    if (g->n_deck == 0) return -1;
    int card = g->deck[g->head];
    g->head = (g->head + 1) & (QUEUE - 1);
    g->n_deck--;
    return card;
}

/* Fisher-Yates over the deck, top to bottom (a uniform permutation). */
static void shuffle_deck(game_t *g) {
    for (int i = g->n_deck - 1; i > 0; i--) {
        int j = (int)below(&g->rng, (uint32_t)(i + 1));
        int a = (g->head + i) & (QUEUE - 1), b = (g->head + j) & (QUEUE - 1);
        uint8_t t = g->deck[a];
        g->deck[a] = g->deck[b];
        g->deck[b] = t;
    }
}

/* R5.7: a set of cards to the bottom of the deck in a uniformly random order (discard_order "random"). */
static void to_bottom(game_t *g, set_t cards) {
    int order[N_CARDS], n = 0;
    for (set_t s = cards; s; s &= s - 1) order[n++] = __builtin_ctz(s);
    for (int i = n - 1; i > 0; i--) {
        int j = (int)below(&g->rng, (uint32_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) {
        g->deck[(g->head + g->n_deck) & (QUEUE - 1)] = (uint8_t)order[i];
        g->n_deck++;
    }
}

/* The i-th town other than `a` (i in 0..towns-2). */
static inline int other(int a, int i) { return i < a ? i : i + 1; }

static inline int witches_in_front(const game_t *g) { return count(g->captured) + g->fake_held; }

/* R1: shuffle the 27 cards, the top one to the woods, 2 cards to each town round-robin from town 0. */
static void set_up(game_t *g, int towns) {
    g->towns = towns;
    for (int c = 0; c < N_CARDS; c++) g->deck[c] = (uint8_t)c;
    g->head = 0;
    g->n_deck = N_CARDS;
    shuffle_deck(g);
    g->woods = draw(g);
    for (int t = 0; t < towns; t++) g->hands[t] = 0;
    for (int k = 0; k < 2; k++)
        for (int t = 0; t < towns; t++) g->hands[t] |= 1u << draw(g);
    g->captured = 0;
    g->fake_held = 0;
    g->rituals = 0;
    g->faces[0] = g->faces[1] = g->faces[2] = 0;
    g->winner = -1;
    g->win_type = -1;
}

/* R2: census draws, the coven check (returns 1 when the towns win), the spell, the talk, the hat.
 * Sets *cast_tile (-1 none) and *hat. */
static int census(game_t *g, int *cast_tile, int *hat) {
    int towns = g->towns;
    for (int t = 0; t < towns; t++)
        if (g->hands[t] == 0 && g->n_deck > 0) g->hands[t] |= 1u << draw(g);
    for (int t = 0; t < towns; t++)
        if (has_coven(g->hands[t])) return 1;
    int castable[3], n = 0;
    for (int tile = 0; tile < 3; tile++) {
        int spell = TILE_SPELL[tile][g->faces[tile]];
        for (int t = 0; t < towns; t++)
            if (can_cast(g->hands[t], spell)) {
                castable[n++] = tile;
                break;
            }
    }
    *cast_tile = -1;
    if (n > 0) { /* D_SPELL: each castable tile or no */
        int j = (int)below(&g->rng, (uint32_t)(n + 1));
        if (j < n) *cast_tile = castable[j];
    }
    (void)below(&g->rng, (uint32_t)(towns + 1)); /* D_ANNOUNCE: any town or none (changes nothing here) */
    *hat = (int)below(&g->rng, (uint32_t)towns); /* D_HAT */
    return 0;
}

/* R3: one Arrival (the shuffle offer, then the plain deal or the ritual deal). */
static void arrival(game_t *g) {
    int towns = g->towns;
    if (g->n_deck >= 2 && below(&g->rng, 2) == 0) shuffle_deck(g); /* D_SHUFFLE: yes or no */
    if (!g->rituals) {
        for (int t = 0; t < towns; t++) {
            int card = draw(g);
            if (card < 0) break;
            g->hands[t] |= 1u << card;
        }
        return;
    }
    set_t left = 0; /* R3.2: draw min(T, deck), then D_DEAL for towns 0..T-1 while cards remain */
    int n = towns < g->n_deck ? towns : g->n_deck;
    for (int i = 0; i < n; i++) left |= 1u << draw(g);
    for (int t = 0; t < towns && left; t++) {
        int k = count(left);
        int options = k + (k < towns - t); /* A_NO only when fewer cards remain than towns to serve */
        int j = (int)below(&g->rng, (uint32_t)options);
        if (j == k) continue;
        int card = kth(left, j);
        left &= ~(1u << card);
        g->hands[t] |= 1u << card;
    }
}

/* R4.3: `a` asks `u`; u answers with a card of its choice when it holds >= 2. */
static inline void ask(game_t *g, int a, int u) {
    set_t hand = g->hands[u];
    if (count(hand) < 2) return;
    int card = kth(hand, (int)below(&g->rng, (uint32_t)count(hand))); /* D_ANSWER */
    g->hands[u] &= ~(1u << card);
    g->hands[a] |= 1u << card;
}

/* R4.1-R4.6: town `a`'s one action, uniform among gives (>= 2 cards: card x other town), asks (every
 * other town: ask_empty) and swaps (each card); Passage: D_MORE to the same town while a holds >= 2. */
static void town_action(game_t *g, int a, int passage) {
    int others = g->towns - 1;
    set_t hand = g->hands[a];
    int n = count(hand);
    int gives = n >= 2 ? n * others : 0;
    int j = (int)below(&g->rng, (uint32_t)(gives + others + n)); /* never empty: asks are always legal */
    if (j < gives) {
        int card = kth(hand, j / others), u = other(a, j % others);
        g->hands[a] &= ~(1u << card);
        g->hands[u] |= 1u << card;
        if (passage) {
            while (count(g->hands[a]) >= 2) {
                int m = count(g->hands[a]);
                int k = (int)below(&g->rng, (uint32_t)(m + 1)); /* D_MORE: each card to u, or stop */
                if (k == m) break;
                int more = kth(g->hands[a], k);
                g->hands[a] &= ~(1u << more);
                g->hands[u] |= 1u << more;
            }
        }
    } else if (j < gives + others) {
        ask(g, a, other(a, j - gives));
    } else {
        int card = kth(hand, j - gives - others);
        g->hands[a] = (hand & ~(1u << card)) | (1u << g->woods);
        g->woods = card;
    }
}

/* R5.3/R5.5: the town's remaining hand flees to the bottom. */
static inline void flee(game_t *g, int u) {
    set_t hand = g->hands[u];
    g->hands[u] = 0;
    if (hand) to_bottom(g, hand);
}

/* R5.1-R5.5: a random card of town u's hand, revealed and resolved; returns 1 when the game ends. */
static int pick_from(game_t *g, int u) {
    set_t hand = g->hands[u];
    int card = kth(hand, (int)below(&g->rng, (uint32_t)count(hand)));
    g->hands[u] = hand & ~(1u << card);
    if (card >= FIRST_RITUAL) {
        g->rituals |= 1u << card;
        if (count(g->rituals) >= 2) {
            g->winner = WINNER_TOWN;
            g->win_type = WIN_RITUAL;
            return 1;
        }
    } else if (card >= FIRST_FOLK) { /* D_TOWNSFOLK: any town other than u */
        int v = other(u, (int)below(&g->rng, (uint32_t)(g->towns - 1)));
        g->hands[v] |= 1u << card;
    } else if (card == FAKE) {
        g->fake_held = 1;
        flee(g, u);
        set_t escaped = g->captured;
        g->captured = 0;
        if (escaped) to_bottom(g, escaped);
    } else {
        g->captured |= 1u << card;
        flee(g, u);
        if (witches_in_front(g) >= 5) {
            g->winner = WINNER_HUNTER;
            return 1;
        }
    }
    return 0;
}

/* A uniformly random town holding a card (D_PICK / D_DOOM), -1 when every town is empty. */
static inline int random_holder(game_t *g) {
    int holders[MAX_TOWNS], n = 0;
    for (int t = 0; t < g->towns; t++)
        if (g->hands[t]) holders[n++] = t;
    if (n == 0) return -1;
    return holders[below(&g->rng, (uint32_t)n)];
}

/* R5: two picks; under Doom both from one named town (a second pick from it emptied: skipped). */
static int hunt(game_t *g, int doom) {
    if (doom) {
        int u = random_holder(g);
        if (u < 0) return 0;
        for (int p = 0; p < 2; p++) {
            if (!g->hands[u]) return 0;
            if (pick_from(g, u)) return 1;
        }
        return 0;
    }
    for (int p = 0; p < 2; p++) {
        int u = random_holder(g);
        if (u < 0) return 0;
        if (pick_from(g, u)) return 1;
    }
    return 0;
}

/* One game; returns the round it ended in, sets g->winner. */
static int play(game_t *g, int towns) {
    set_up(g, towns);
    for (int round = 1;; round++) {
        int cast_tile, hat;
        if (census(g, &cast_tile, &hat)) {
            g->winner = WINNER_TOWN;
            g->win_type = WIN_COVEN;
            return round;
        }
        int active = cast_tile >= 0 ? TILE_SPELL[cast_tile][g->faces[cast_tile]] : -1;
        for (int lap = 0; lap < (active == GROWTH ? 2 : 1); lap++) arrival(g);
        for (int lap = 0; lap < (active == NATURE ? 2 : 1); lap++) /* nature_restart: from the hat again */
            for (int i = 0; i < towns; i++) town_action(g, (hat + i) % towns, active == PASSAGE);
        if (hunt(g, active == DOOM)) return round;
        if (cast_tile >= 0) g->faces[cast_tile] ^= 1; /* R5.8 */
        if (round >= MAX_ROUNDS) {
            g->winner = WINNER_NONE;
            return round;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s GAMES PLAYERS [SEED]   (PLAYERS 4-6)\n", argv[0]);
        return 2;
    }
    long long games = atoll(argv[1]);
    int players = atoi(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 2026;
    if (games < 1 || players < 4 || players > MAX_TOWNS + 1) {
        fprintf(stderr, "games >= 1 and players 4-6\n");
        return 2;
    }
    int towns = players - 1;
    long long wins[3] = {0, 0, 0}, coven_wins = 0;
    long long rounds_sum = 0, rounds_sq_sum = 0;
    game_t g;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long long i = 0; i < games; i++) {
        rng_seed(&g.rng, seed, (uint64_t)i);
        int rounds = play(&g, towns);
        wins[g.winner]++;
        coven_wins += g.winner == WINNER_TOWN && g.win_type == WIN_COVEN;
        rounds_sum += rounds;
        rounds_sq_sum += (long long)rounds * rounds;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("{\"games\": %lld, \"players\": %d, \"towns\": %d, \"hunter_wins\": %lld, "
           "\"town_wins\": %lld, \"coven_wins\": %lld, \"unfinished\": %lld, \"rounds_sum\": %lld, "
           "\"rounds_sq_sum\": %lld, \"seconds\": %.6f, \"games_per_s\": %.1f, \"rounds_per_s\": %.1f}\n",
           games, players, towns, wins[WINNER_HUNTER], wins[WINNER_TOWN], coven_wins, wins[WINNER_NONE],
           rounds_sum, rounds_sq_sum, seconds, (double)games / seconds, (double)rounds_sum / seconds);
    return 0;
}
