"""The compiled core of the exact solver and of random rollouts (numba, cached).

Whole search loops run compiled: one call solves a position. The rules are those of
:class:`rebelote.hand.HandState` (the readable reference); ``tests/test_solver.py``
keeps the two identical (legal moves, trick winners, points).

A position is the remaining cards of each seat (``hands``), the cards already on the
table in the current trick, and a few flags. Values are the card points (dix de der and
the capot bonus included) that team ``max_team`` collects from the position on.
"""

from __future__ import annotations

import time

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from rebelote.cards import ALL_TRUMP, ALL_TRUMP_POINTS, HIGHER, SUIT_MASK, WIN_VALUE, points_table

# -- tables -------------------------------------------------------------------------------

SUIT_MASKS = np.array(SUIT_MASK, dtype=np.int64)
WIN_TABLE = np.array(WIN_VALUE, dtype=np.int64)  # [mode, card]
HIGHER_TABLE = np.array(HIGHER, dtype=np.int64)  # [mode, card]


def _order_table() -> np.ndarray:
    """``ORDER[mode, suit]``: the suit's cards from strongest to weakest under ``mode``."""
    table = np.zeros((6, 4, 8), dtype=np.int64)
    for mode in range(6):
        for suit in range(4):
            cards = sorted(range(suit * 8, suit * 8 + 8), key=lambda c: -WIN_VALUE[mode][c])
            table[mode, suit, :] = cards
    return table


ORDER_TABLE = _order_table()

# Card points: one row per suit contract, sans atout, then tout atout under each of its
# RULES.md options (``points_row``). Read as a constant, like the tables above: an array
# passed to a compiled function costs two atomic reference counts a call.
ALL_TRUMP_OPTIONS = tuple(ALL_TRUMP_POINTS)
POINTS_TABLE = np.array([points_table(m) for m in range(ALL_TRUMP)]
                        + [points_table(ALL_TRUMP, o) for o in ALL_TRUMP_OPTIONS],
                        dtype=np.int64)
POINTS_TABLE.setflags(write=False)  # positions hand out its rows


def points_row(mode: int, all_trump_points: str) -> int:
    """The row of ``POINTS_TABLE`` that holds the card points of a contract."""
    return mode if mode < ALL_TRUMP else ALL_TRUMP + ALL_TRUMP_OPTIONS.index(all_trump_points)

# Position flags (``params`` array).
(P_MODE, P_UNDERTRUMP, P_PARTNER_FREE, P_MAX_TEAM, P_CAPOT_BONUS, P_LAST_BONUS, P_PLAYERS,
 P_TAKER, P_LOOP_TRICKS, P_POINTS) = range(10)
N_PARAMS = 10
# The last tricks solved by plain loops rather than the search's frames (P_LOOP_TRICKS;
# 1: none). On the 40 bench deals, every root card (an older kernel): 3 tricks 13.0 ms
# median, 70 max; 4 tricks 12.0 / 58; 5 tricks 14.6 / 69. On fresh deals (200 suit,
# 100 sans atout, 100 tout atout, 200 suit of another seed; the same deals, one run),
# 5 against 4: max -46%, -9%, -27%, -26%, p99 -42%, -9%, -27%, +1%, medians +9%, 0,
# -12%, +2%, sums of times -2%, +3%, -13%, 0; 6 tricks: medians and sums 10-30% higher.
LOOP_TRICKS = 5
RuleTuple = tuple[int, int, int, int, int, int, int, int, int, int]
MAX_DEPTH = 40

# 2^17 entries of 16 bytes: 2 MB, one core's L2 cache here. Against 2^18, on the 40 bench
# deals every root card, interleaved: median and max 3-5% lower (suit contracts); sans
# atout / tout atout medians 3% lower, their max (0.3-0.4 s) 9-11% higher.
TT_BITS = 17
TT_SIZE = 1 << TT_BITS
GENERATIONS = 1 << 25  # solves between two clearings of the table (see Solver)
INF = 1 << 20
ASPIRATION = 1  # points either side of a sibling's value
WIDEN = 8  # points a failed aspiration window moves by on its failing side
S_NODE_LIMIT = 60
"""``stats[S_NODE_LIMIT]``: the node count (``stats[0]``) at which a search gives up (0:
never), so that a decision keeps to its time; it then sets ``stats[S_ABORTED]`` and
returns at once, the hands it was given left in no particular state (the caller passes a
copy) and the table holding only what completed subtrees stored (valid bounds)."""
S_ABORTED = 61
S_DEADLINE = 62
"""``stats[S_DEADLINE]``: the monotonic clock's reading (ns, :func:`monotonic_ns`) at
which a search gives up (0: never). The search reads the clock itself every
:data:`CLOCK_NODES` nodes: an alarm thread setting the node limit had to be scheduled
and to take the GIL first, and let 10 ms cards run 5 to 9 ms past their cap on this
2-core machine with both cores searching."""
CLOCK_NODES = 16
"""Nodes between two readings of the clock when a deadline is set (a reading costs about
50 ns, a node 100 ns to a few µs)."""


def new_table() -> np.ndarray:
    """A transposition table: rows of (key, data). The key is the cards still out and the
    trick's state; data packs lower bound + 1 (13 bits), upper bound (13 bits), best
    move + 1 (6 bits) and the solve's generation (from bit 32)."""
    return np.zeros((TT_SIZE, 2), dtype=np.int64)


# -- the clock ----------------------------------------------------------------------------

_CLOCK_ID = getattr(time, "CLOCK_MONOTONIC", 1)


@intrinsic
def _monotonic_ns(typingctx):  # type: ignore[no-untyped-def]
    """The C library's ``clock_gettime(CLOCK_MONOTONIC)`` in ns, from compiled code
    without the GIL (the clock of ``time.perf_counter`` on Linux; the symbol is looked
    up by name when the code loads, so the cached code stays valid)."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.ArrayType(i64, 2)
        # in the entry block: an alloca where the search loops would grow the stack
        ts = cgutils.alloca_once(builder, timespec)  # type: ignore[no-untyped-call]
        clock = builder.module.globals.get("clock_gettime") or ir.Function(
            builder.module, ir.FunctionType(i32, [i32, timespec.as_pointer()]),
            "clock_gettime")
        builder.call(clock, [ir.Constant(i32, _CLOCK_ID), ts])
        zero = ir.Constant(i32, 0)
        seconds = builder.load(builder.gep(ts, [zero, zero]))
        nanos = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanos)
    return types.int64(), codegen


@njit(cache=True, nogil=True)
def monotonic_ns() -> int:
    """The clock the search reads for its deadline (ns)."""
    return _monotonic_ns()  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def _past_deadline(stats: np.ndarray) -> bool:
    """Whether the search's deadline (``stats[S_DEADLINE]``, 0: none) has passed."""
    return stats[S_DEADLINE] != 0 and _monotonic_ns() >= stats[S_DEADLINE]  # type: ignore[call-arg]


# -- rules --------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def legal_mask(hand: int, n_in_trick: int, led: int, best_card: int, best_value: int,
               best_seat: int, player: int, mode: int, undertrump: int, partner_free: int,
               players: int) -> int:
    """The legal cards of ``hand`` (RULES.md §5), as in ``HandState._legal_cards``.
    (The kernel's inlined helpers take no array: numba counts an array argument's
    references at every inlined call, atomic operations that took a third of the
    solver's time: on the 40 bench deals, every root card, median 18-19 → 12.5 ms.)"""
    if n_in_trick == 0:
        return hand
    follow = hand & SUIT_MASKS[led]
    if led == mode or mode == 5:
        if follow != 0:
            over = follow & HIGHER_TABLE[mode, best_card]
            return over if over != 0 else follow
        return hand
    if follow != 0:
        return follow
    if mode == 4:
        return hand
    trumps = hand & SUIT_MASKS[mode]
    if trumps == 0:
        return hand
    if partner_free != 0 and players == 4 and best_seat == (player + 2) % 4:
        return hand
    if best_value >= 16:
        over = trumps & HIGHER_TABLE[mode, best_card]
        if over != 0:
            return over
        return trumps if undertrump != 0 else hand
    return trumps


@njit(cache=True, inline="always")
def trick_value(card: int, led: int, mode: int) -> int:
    """Strength of ``card`` in a trick led in ``led`` (0: cannot win)."""
    v = WIN_TABLE[mode, card]
    if v < 16 and (card >> 3) != led:
        return 0
    return v


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """The CPU's population count (LLVM ``ctpop``)."""
    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])
    return x(x), codegen


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    return _ctpop(x)  # type: ignore[call-arg]


@njit(cache=True, inline="always")
def lowest_bit_index(x: int) -> int:
    """Index of the lowest set bit of ``x`` (``x`` != 0)."""
    return trailing_zeros(x)  # type: ignore[call-arg]


# -- move generation with equivalent cards merged ----------------------------------------


@njit(cache=True)
def _zero_mask(mode: int, row: int) -> int:
    """The point-less weakest cards of each suit (7 8 9 plain, 7 8 trump): the only cards
    that can be equivalent (every other card of a suit is worth its own points)."""
    zero_mask = 0
    for s in range(4):
        for i in range(7, -1, -1):
            c = ORDER_TABLE[mode, s, i]
            if POINTS_TABLE[row, c] != 0:
                break
            zero_mask |= 1 << c
    return zero_mask


@njit(cache=True, inline="always")
def _equivalent_zero_cards(legal: int, remaining: int, best: int, zero_mask: int) -> int:
    """The legal cards that an equivalent stronger one of the same hand stands for:
    point-less cards of one suit with no other card between them that is still in a
    hand (another hand's, or an illegal one of this hand) or is the trick's best card
    (``best``: its bit, 0 at a trick's start); the cards played before it do not
    separate. Only the strongest of each run is searched. The point-less cards are the
    weakest two or three of each suit, in bit order (``_zero_mask``), so a run is two
    cards next to each other or two with a card between them that separates nothing."""
    z = legal & zero_mask
    if z & (z - 1) == 0:
        return 0
    separators = (remaining & ~legal) | best
    return (z & (z >> 1)) | (z & ~(separators >> 1) & (z >> 2))


@njit(cache=True)
def new_heuristics() -> tuple[np.ndarray, np.ndarray]:
    """Move-ordering memory shared by the searches of one solve: how often each card cut
    off as a lead (one row), two killer cards per depth."""
    return np.zeros((1, 32), dtype=np.int64), np.full((MAX_DEPTH, 2), -1, dtype=np.int64)


# -- the search ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _hash(key: int) -> int:
    x = key * 0x1E3779B97F4A7C15
    x ^= x >> 29
    x *= 0x14D049BB133111EB
    x ^= x >> 32
    return x & (TT_SIZE - 1)


# Frame fields of the explicit search stack.
(F_N, F_LEADER, F_LED, F_BCARD, F_BVAL, F_BSEAT, F_TPTS, F_WON0, F_WON1, F_ALPHA, F_BETA,
 F_A0, F_B0, F_BEST, F_BMOVE, F_I, F_NMOVES, F_PLAYER, F_MAX, F_SLOT, F_KEY, F_GAIN,
 F_RPTS, F_SCOUT, F_RESEARCH) = range(25)
N_FIELDS = 25


@njit(cache=True, inline="always")
def _team(seat: int, players: int, taker: int) -> int:
    if players == 4:
        return seat & 1
    return 0 if seat == taker else 1


@njit(cache=True, inline="always")
def _entry(value: int, alpha: int, beta: int, move: int, gen: int) -> int:
    """A table entry's data for a fail-soft search's ``value`` (window ``alpha``..``beta``):
    an upper bound, a lower bound or the exact value, with the best move (-1: none). The
    table holds key ^ data beside the data (see :class:`Solver`)."""
    if value <= alpha:
        lo, up = -1, value
    elif value >= beta:
        lo, up = value, 0x1FFF
    else:
        lo, up = value, value
    return (lo + 1) | (up << 13) | ((move + 1) << 26) | (gen << 32)


@njit(cache=True, inline="always")
def _merged_entry(value: int, alpha: int, beta: int, known_lo: int, known_up: int,
                  move: int, gen: int) -> int:
    """A table entry for a fail-soft search's ``value`` (window ``alpha``..``beta``)
    that keeps the bounds already known of the position (``known_lo``: -1, ``known_up``:
    0x1FFF when none): both are true of it, the window's result tightens one of them."""
    lo, up = known_lo, known_up
    if value <= alpha:
        up = min(up, value)
    elif value >= beta:
        lo = max(lo, value)
    else:
        lo, up = value, value
    return (lo + 1) | (up << 13) | ((move + 1) << 26) | (gen << 32)


@njit(cache=True, inline="always")
def _minimax(maximizing: bool, best: int, alpha: int, beta: int, value: int
             ) -> tuple[int, int, int]:
    """One child's ``value`` taken into a node's best value and window."""
    if maximizing:
        best = max(best, value)
        return best, max(alpha, best), beta
    best = min(best, value)
    return best, alpha, min(beta, best)


@njit(cache=True, inline="always")
def _next_seat(seat: int, players: int) -> int:
    return seat + 1 if seat + 1 < players else seat + 1 - players


@njit(cache=True, inline="always")
def _rule_tuple(params: np.ndarray) -> RuleTuple:
    """The rule parameters as a tuple: passed by value, where an array passed to a
    function costs two atomic reference counts."""
    return (params[0], params[1], params[2], params[3], params[4], params[5], params[6],
            params[7], params[8], params[9])


@njit(cache=True, inline="always")
def _last_trick(h0: int, h1: int, h2: int, h3: int, lead: int, won0: int, won1: int,
                trick_points: int, rules: RuleTuple) -> int:
    """The value of the last trick (one card a hand: no choice; ``trick_points``: its
    cards' points and dix de der), the capot bonus included."""
    players = rules[P_PLAYERS]
    mode = rules[P_MODE]
    hs = (h0, h1, h2, h3)
    c = lowest_bit_index(hs[lead])
    lsuit = c >> 3
    bv = WIN_TABLE[mode, c]
    bs = lead
    for k2 in range(1, players):
        s2 = lead + k2
        if s2 >= players:
            s2 -= players
        v2 = trick_value(lowest_bit_index(hs[s2]), lsuit, mode)
        if v2 > bv:
            bv = v2
            bs = s2
    max_team = rules[P_MAX_TEAM]
    wt = _team(bs, players, rules[P_TAKER])
    ret = trick_points if wt == max_team else 0
    w0 = won0 | (1 if wt == 0 else 0)
    w1 = won1 | (1 if wt == 1 else 0)
    if (max_team == 0 and w1 == 0) or (max_team == 1 and w0 == 0):
        ret += rules[P_CAPOT_BONUS]
    return ret


@njit(cache=True, inline="always")
def _trick_step(card: int, seat: int, n: int, led: int, best_card: int, best_value: int,
                best_seat: int, mode: int) -> tuple[int, int, int, int]:
    """The trick's (led suit, best card, its strength, its seat) after ``card``."""
    if n == 0:
        return card >> 3, card, WIN_TABLE[mode, card], seat
    v = trick_value(card, led, mode)
    if v > best_value:
        return led, card, v, seat
    return led, best_card, best_value, best_seat


@njit(cache=True, inline="always")
def _most(points_out: int, won0: int, won1: int, rules: RuleTuple) -> int:
    """The most ``max_team`` collects from a trick's start on: the points still out,
    dix de der, and the capot bonus while the other side has no trick."""
    theirs = won1 if rules[P_MAX_TEAM] == 0 else won0
    return points_out + rules[P_LAST_BONUS] + (rules[P_CAPOT_BONUS] if theirs == 0 else 0)


@njit(cache=True, inline="always")
def _masters(hand: int, others: int, mode: int) -> int:
    """The cards of ``hand`` that no card of ``others`` beats in their suit."""
    masters = 0
    m = hand
    while m != 0:
        c = lowest_bit_index(m)
        m &= m - 1
        if HIGHER_TABLE[mode, c] & others == 0:
            masters |= 1 << c
    return masters


@njit(cache=True, inline="always")
def _richest(cards: int, mode: int, row: int) -> int:
    """The card of ``cards`` (not empty) worth the most points, the strongest of equals."""
    best, best_key = -1, -1
    m = cards
    while m != 0:
        c = lowest_bit_index(m)
        m &= m - 1
        key = POINTS_TABLE[row, c] * 8 + WIN_TABLE[mode, c]
        if key > best_key:
            best, best_key = c, key
    return best


# The fourth card of a trick in the loops below when three play: none (one pass).
NO_FOURTH = 32


@njit(cache=True)
def _last_tricks(h0: int, h1: int, h2: int, h3: int, leader: int, won0: int, won1: int,
                 alpha: int, beta: int, first: int, tricks: int, remaining_points: int,
                 rules: RuleTuple, tt: np.ndarray, gen: int, stats: np.ndarray,
                 zero_mask: int) -> tuple[int, int]:
    """The value of the last ``tricks`` tricks (``remaining_points``: their cards' points)
    and the best lead: fail-soft alpha-beta, plain loops over the cards of the first of
    them (``first``: the lead tried first, -1 none); after it, the last trick played out,
    or the tricks left from the table when it knows, else solved (this function) and
    stored under the key the search uses at a trick's start, keeping the bound the table
    already had (the window narrowed by it first). Each hand's equivalent point-less
    cards are tried once (``zero_mask``, as in the search). Loops, without frames or a
    table inside a trick and with a simple lead order, are faster than the search near
    the end. (On the 40 slowest of 1,000 fresh suit deals, every root card, interleaved
    with the code before: equivalent cards merged 25 % faster, the kept bounds 12 %.)
    Past the search's deadline (``stats[S_DEADLINE]``, read on entry with four
    tricks or more: five tricks of loops took up to 30 ms; reading it at three too cost
    7-11 % of a solve) it sets ``stats[S_ABORTED]`` and returns at once, storing nothing
    more."""
    if tricks >= 4 and _past_deadline(stats):
        stats[S_ABORTED] = 1
        return 0, -1
    players = rules[P_PLAYERS]
    mode = rules[P_MODE]
    undertrump = rules[P_UNDERTRUMP]
    partner_free = rules[P_PARTNER_FREE]
    max_team = rules[P_MAX_TEAM]
    taker = rules[P_TAKER]
    row = rules[P_POINTS]
    s0 = leader
    s1 = _next_seat(s0, players)
    s2 = _next_seat(s1, players)
    s3 = _next_seat(s2, players)
    h = (h0, h1, h2, h3)
    max0 = _team(s0, players, taker) == max_team
    max1 = _team(s1, players, taker) == max_team
    max2 = _team(s2, players, taker) == max_team
    max3 = _team(s3, players, taker) == max_team if players == 4 else False
    a0, b0 = alpha, beta
    v0 = -INF if max0 else INF
    best = -1
    m0 = h[s0]
    everything = h[0] | h[1] | h[2] | h[3]
    masters = _masters(m0, everything & ~m0, mode)
    m0 &= ~_equivalent_zero_cards(m0, everything, 0, zero_mask)
    while m0 != 0 and a0 < b0:
        # Leads: the table's card, then masters richest first, then the rest from the
        # lowest card up (on the 40 bench deals, every root card: max 52 -> 46 ms
        # against the lowest card first; the search's full lead order was no better).
        if first >= 0 and (m0 >> first) & 1:
            c0 = first
        elif masters & m0:
            c0 = _richest(masters & m0, mode, row)
        else:
            c0 = lowest_bit_index(m0)
        m0 &= ~(1 << c0)
        led, bc0, bv0, bs0 = _trick_step(c0, s0, 0, 0, 0, 0, 0, mode)
        a1, b1 = a0, b0
        v1 = -INF if max1 else INF
        m1 = legal_mask(h[s1], 1, led, bc0, bv0, bs0, s1, mode, undertrump, partner_free,
                        players)
        rest0 = everything ^ (1 << c0)
        m1 &= ~_equivalent_zero_cards(m1, rest0, 1 << bc0, zero_mask)
        while m1 != 0 and a1 < b1:
            c1 = lowest_bit_index(m1)
            m1 &= m1 - 1
            _, bc1, bv1, bs1 = _trick_step(c1, s1, 1, led, bc0, bv0, bs0, mode)
            a2, b2 = a1, b1
            v2 = -INF if max2 else INF
            m2 = legal_mask(h[s2], 2, led, bc1, bv1, bs1, s2, mode, undertrump,
                            partner_free, players)
            rest1 = rest0 ^ (1 << c1)
            m2 &= ~_equivalent_zero_cards(m2, rest1, 1 << bc1, zero_mask)
            while m2 != 0 and a2 < b2:
                c2 = lowest_bit_index(m2)
                m2 &= m2 - 1
                _, bc2, bv2, bs2 = _trick_step(c2, s2, 2, led, bc1, bv1, bs1, mode)
                played = (1 << c0) | (1 << c1) | (1 << c2)
                pts = (POINTS_TABLE[row, c0] + POINTS_TABLE[row, c1]
                       + POINTS_TABLE[row, c2])
                a3, b3 = a2, b2
                v3 = -INF if max3 else INF
                m3 = legal_mask(h[s3], 3, led, bc2, bv2, bs2, s3, mode, undertrump,
                                partner_free, players) if players == 4 else 1 << NO_FOURTH
                if players == 4:
                    m3 &= ~_equivalent_zero_cards(m3, rest1 ^ (1 << c2), 1 << bc2, zero_mask)
                while m3 != 0 and a3 < b3:
                    c3 = lowest_bit_index(m3)
                    m3 &= m3 - 1
                    if c3 == NO_FOURTH:
                        bs3, trick_pts, rest = bs2, pts, ~played
                    else:
                        _, _, _, bs3 = _trick_step(c3, s3, 3, led, bc2, bv2, bs2, mode)
                        trick_pts, rest = pts + POINTS_TABLE[row, c3], ~(played | (1 << c3))
                    wt = _team(bs3, players, taker)
                    gain = trick_pts if wt == max_team else 0
                    w0 = won0 | (1 if wt == 0 else 0)
                    w1 = won1 | (1 if wt == 1 else 0)
                    r0, r1, r2, r3 = h[0] & rest, h[1] & rest, h[2] & rest, h[3] & rest
                    points_out = remaining_points - trick_pts
                    if tricks == 2:
                        v = _last_trick(r0, r1, r2, r3, bs3, w0, w1,
                                        points_out + rules[P_LAST_BONUS], rules)
                    elif gain >= b3:  # bounds first (cheaper than the table's probe)
                        v = 0
                    elif gain + _most(points_out, w0, w1, rules) <= a3:
                        v = _most(points_out, w0, w1, rules)
                    else:
                        key = (r0 | r1 | r2 | r3) | ((bs3 | (w0 << 22) | (w1 << 23)) << 32)
                        slot = _hash(key)
                        a, b = a3 - gain, b3 - gain
                        data = tt[slot, 1]
                        v = -1
                        lead = -1
                        known_lo = -1
                        known_up = 0x1FFF
                        if tt[slot, 0] ^ data == key and (data >> 32) == gen:
                            known_lo = (data & 0x1FFF) - 1
                            known_up = (data >> 13) & 0x1FFF
                            if known_lo >= b or known_lo == known_up:
                                v = known_lo
                            elif known_up <= a:
                                v = known_up
                            lead = ((data >> 26) & 0x3F) - 1
                        if v < 0:
                            a = max(a, known_lo)
                            b = min(b, known_up)
                            v, lead = _last_tricks(r0, r1, r2, r3, bs3, w0, w1, a, b, lead,
                                                   tricks - 1, remaining_points - trick_pts,
                                                   rules, tt, gen, stats, zero_mask)
                            if stats[S_ABORTED] != 0:
                                return 0, -1
                            data = _merged_entry(v, a, b, known_lo, known_up, lead, gen)
                            tt[slot, 0] = key ^ data
                            tt[slot, 1] = data
                    v3, a3, b3 = _minimax(max3, v3, a3, b3, gain + v)
                v2, a2, b2 = _minimax(max2, v2, a2, b2, v3)
            v1, a1, b1 = _minimax(max1, v1, a1, b1, v2)
        if (v1 > v0) if max0 else (v1 < v0):
            best = c0
        v0, a0, b0 = _minimax(max0, v0, a0, b0, v1)
    return v0, best


@njit(cache=True, nogil=True)
def search(hands: np.ndarray, n_in_trick: int, leader: int, led: int, best_card: int,
           best_value: int, best_seat: int, trick_points: int, won0: int, won1: int,
           alpha: int, beta: int, params: np.ndarray, tt: np.ndarray,
           gen: int, stats: np.ndarray, history: np.ndarray, killers: np.ndarray) -> int:
    """Fail-soft alpha-beta, iterative: the points ``max_team`` collects from here on
    (dix de der and capot bonus included) with best play by everyone.

    Principal variation search (null windows after the first move), a transposition
    table at every node (a forced card and a trick's last card excepted), bounds from
    the points still out and from the highest trumps one hand holds, equivalent cards
    merged, moves ordered by the table's card, two killers per depth, for a lead a
    history of the leads that cut off, then the card's role in the trick. (The same
    history for the cards played later in a trick ordered them worse than their role
    alone: 26.4M against 21.8M nodes on the 40 bench deals.) The last tricks
    (``P_LOOP_TRICKS``) are plain loops (:func:`_last_tricks`), after the table's
    probe. The frame stack is a 2-D array indexed in place: array views in this loop
    cost an atomic reference count each."""
    mode = params[P_MODE]
    players = params[P_PLAYERS]
    max_team = params[P_MAX_TEAM]
    taker = params[P_TAKER]
    capot_bonus = params[P_CAPOT_BONUS]
    last_bonus = params[P_LAST_BONUS]
    undertrump = params[P_UNDERTRUMP]
    partner_free = params[P_PARTNER_FREE]
    rules = _rule_tuple(params)
    loop_tricks = params[P_LOOP_TRICKS]
    points = POINTS_TABLE[params[P_POINTS]]
    win = WIN_TABLE[mode]
    higher = HIGHER_TABLE[mode]
    fr = np.zeros((MAX_DEPTH, N_FIELDS), dtype=np.int64)
    mv = np.zeros((MAX_DEPTH, 8), dtype=np.int64)
    keys = np.zeros(8, dtype=np.int64)
    d = 0
    fr[d, F_N] = n_in_trick
    fr[d, F_LEADER] = leader
    fr[d, F_LED] = led
    fr[d, F_BCARD] = best_card
    fr[d, F_BVAL] = best_value
    fr[d, F_BSEAT] = best_seat
    fr[d, F_TPTS] = trick_points
    fr[d, F_WON0] = won0
    fr[d, F_WON1] = won1
    fr[d, F_ALPHA] = alpha
    fr[d, F_BETA] = beta
    rpts = 0
    m = hands[0] | hands[1] | hands[2] | hands[3]
    while m != 0:
        rpts += points[lowest_bit_index(m)]
        m &= m - 1
    fr[d, F_RPTS] = rpts
    zero_mask = _zero_mask(mode, params[P_POINTS])
    entering = True
    ret = 0
    while True:
        if entering:
            entering = False
            stats[0] += 1
            if stats[S_NODE_LIMIT] != 0 and stats[0] > stats[S_NODE_LIMIT]:
                stats[S_ABORTED] = 1
                return 0
            if stats[0] % CLOCK_NODES == 0 and _past_deadline(stats):
                stats[S_ABORTED] = 1
                return 0
            n = fr[d, F_N]
            a = fr[d, F_ALPHA]
            b = fr[d, F_BETA]
            remaining = hands[0] | hands[1] | hands[2] | hands[3]
            fr[d, F_SLOT] = -1
            tt_move = -1
            done = False
            forced = False
            legal = 0
            player = 0
            theirs = fr[d, F_WON1] if max_team == 0 else fr[d, F_WON0]
            if n == 0 and remaining == 0:
                ours = fr[d, F_WON0] if max_team == 0 else fr[d, F_WON1]
                ret = capot_bonus if (ours != 0 and theirs == 0) else 0
                done = True
            else:
                # Bound: max_team cannot collect more than the points still out.
                upper_bound = fr[d, F_TPTS] + fr[d, F_RPTS] + last_bonus
                lower_bound = 0
                capot_open = theirs == 0
                if n == 0 and mode < 4:
                    # At a trick's start, the highest trumps still out, while one hand
                    # holds them, each win the trick they fall in (one hand plays them to
                    # different tricks): their team collects at least their points, the
                    # other side cannot capot. (Mid-trick, the same bound saved no node.)
                    trumps_out = remaining & SUIT_MASKS[mode]
                    if trumps_out != 0:
                        ti = 0
                        t = ORDER_TABLE[mode, mode, 0]
                        while (trumps_out >> t) & 1 == 0:
                            ti += 1
                            t = ORDER_TABLE[mode, mode, ti]
                        owner = 0
                        while (hands[owner] >> t) & 1 == 0:
                            owner += 1
                        own_hand = hands[owner]
                        sure = points[t]
                        ti += 1
                        while ti < 8:
                            t = ORDER_TABLE[mode, mode, ti]
                            ti += 1
                            if (trumps_out >> t) & 1:
                                if (own_hand >> t) & 1 == 0:
                                    break
                                sure += points[t]
                        if _team(owner, players, taker) == max_team:
                            lower_bound = sure
                        else:
                            upper_bound -= sure
                            capot_open = False
                if capot_open:
                    upper_bound += capot_bonus
                if upper_bound <= a:
                    ret = upper_bound
                    done = True
                elif lower_bound >= b:
                    ret = lower_bound
                    done = True
                elif n == 0 and popcount(remaining) == players:  # last trick: no choice
                    ret = _last_trick(hands[0], hands[1], hands[2], hands[3],
                                      fr[d, F_LEADER], fr[d, F_WON0], fr[d, F_WON1],
                                      fr[d, F_RPTS] + last_bonus, rules)
                    done = True
                else:
                    if upper_bound < b:
                        b = upper_bound
                    player = fr[d, F_LEADER] + n  # mod players without a division
                    if player >= players:
                        player -= players
                    legal = legal_mask(hands[player], n, fr[d, F_LED], fr[d, F_BCARD],
                                       fr[d, F_BVAL], fr[d, F_BSEAT], player, mode,
                                       undertrump, partner_free, players)
                    forced = legal & (legal - 1) == 0
                # Within one solve every card has a fixed owner, so the cards still out
                # and the trick's state identify the position exactly. A forced card
                # is played without a look in the table (a probe costs more), and so is
                # the trick's last card: the trick's start after it is in the table (on
                # the bench deals: as many nodes, 5-10% faster).
                if not done and not forced and n != players - 1:
                    key = remaining | ((fr[d, F_LEADER] | (n << 2) | (fr[d, F_LED] << 4)
                                        | (fr[d, F_BCARD] << 6) | (fr[d, F_BSEAT] << 11)
                                        | (fr[d, F_TPTS] << 13) | (fr[d, F_WON0] << 22)
                                        | (fr[d, F_WON1] << 23)) << 32)
                    slot = _hash(key)
                    fr[d, F_SLOT] = slot
                    fr[d, F_KEY] = key
                    stats[2] += 1
                    data = tt[slot, 1]
                    if tt[slot, 0] ^ data == key and (data >> 32) == gen:
                        stats[3] += 1
                        lo = (data & 0x1FFF) - 1
                        up = (data >> 13) & 0x1FFF
                        if lo >= b:
                            ret = lo
                            done = True
                        elif up <= a:
                            ret = up
                            done = True
                        else:
                            if lo > a:
                                a = lo
                            if up < b:
                                b = up
                            tt_move = ((data >> 26) & 0x3F) - 1
                    if not done and a >= b:
                        ret = a
                        done = True
                    if not done and n == 0 and popcount(remaining) <= loop_tricks * players:
                        ret, lead = _last_tricks(hands[0], hands[1], hands[2], hands[3],
                                                 fr[d, F_LEADER], fr[d, F_WON0],
                                                 fr[d, F_WON1], a, b, tt_move,
                                                 popcount(remaining) // players,
                                                 fr[d, F_RPTS], rules, tt, gen, stats,
                                                 zero_mask)
                        if stats[S_ABORTED] != 0:
                            return 0
                        data = _entry(ret, a, b, lead, gen)
                        tt[slot, 0] = key ^ data
                        tt[slot, 1] = data
                        done = True
            if done:
                # return ret to the parent
                if d == 0:
                    return ret
                d -= 1
                        # fall through to the parent's "returning" code below
            else:
                fr[d, F_ALPHA] = a
                fr[d, F_BETA] = b
                fr[d, F_A0] = a
                fr[d, F_B0] = b
                fr[d, F_PLAYER] = player  # player and legal: from the entering code
                own = hands[player]
                classes = legal
                if legal & zero_mask:
                    classes &= ~_equivalent_zero_cards(
                        legal, remaining, (1 << fr[d, F_BCARD]) if n > 0 else 0, zero_mask)
                nm = 0
                while classes != 0:
                    mv[d, nm] = lowest_bit_index(classes)
                    classes &= classes - 1
                    nm += 1
                partner_master = n > 0 and players == 4 and fr[d, F_BSEAT] == (player + 2) % 4
                outside = remaining & ~own
                last = n == players - 1
                for i in range(nm):
                    c = mv[d, i]
                    if c == tt_move:
                        k = 1 << 60
                    elif c == killers[d, 0]:
                        k = 1 << 59
                    elif c == killers[d, 1]:
                        k = 1 << 58
                    elif n == 0:
                        if higher[c] & outside == 0:  # a master card: lead it, richest first
                            k = 1000 + points[c] * 8 + win[c]
                        else:  # otherwise small cards first
                            k = 500 - points[c] * 8 - win[c]
                        k += history[0, c] * 4096
                    else:
                        v = trick_value(c, fr[d, F_LED], mode)
                        if v > fr[d, F_BVAL] and not partner_master:
                            # the last player wins with the most points, others surely
                            k = 1000 + points[c] if last else 800 + v * 8 + points[c]
                        elif partner_master:
                            k = 600 + points[c] * 8 - v  # load points on the partner
                        else:
                            k = 400 - points[c] * 8 - v  # lose cheaply
                    keys[i] = k
                for i in range(1, nm):
                    kc = keys[i]
                    mc = mv[d, i]
                    j = i - 1
                    while j >= 0 and keys[j] < kc:
                        keys[j + 1] = keys[j]
                        mv[d, j + 1] = mv[d, j]
                        j -= 1
                    keys[j + 1] = kc
                    mv[d, j + 1] = mc
                fr[d, F_NMOVES] = nm
                fr[d, F_I] = 0
                maximizing = 1 if _team(player, players, taker) == max_team else 0
                fr[d, F_MAX] = maximizing
                fr[d, F_BEST] = -INF if maximizing else INF
                fr[d, F_BMOVE] = -1
                fr[d, F_SCOUT] = 0
                fr[d, F_RESEARCH] = 0
                ret = 0
                fr[d, F_GAIN] = -1  # marks: no child returned yet
        # -- at frame d: take the returned value of the child (if any), then the next move
        if fr[d, F_GAIN] != -1:
            c = mv[d, fr[d, F_I]]
            hands[fr[d, F_PLAYER]] ^= 1 << c
            value = ret + fr[d, F_GAIN]
            fr[d, F_GAIN] = -1
            if fr[d, F_SCOUT] and fr[d, F_ALPHA] < value < fr[d, F_BETA]:
                fr[d, F_RESEARCH] = 1  # the null window failed inside the window: search again
            else:
                if fr[d, F_MAX]:
                    if value > fr[d, F_BEST]:
                        fr[d, F_BEST] = value
                        fr[d, F_BMOVE] = c
                    if fr[d, F_BEST] > fr[d, F_ALPHA]:
                        fr[d, F_ALPHA] = fr[d, F_BEST]
                else:
                    if value < fr[d, F_BEST]:
                        fr[d, F_BEST] = value
                        fr[d, F_BMOVE] = c
                    if fr[d, F_BEST] < fr[d, F_BETA]:
                        fr[d, F_BETA] = fr[d, F_BEST]
                fr[d, F_I] += 1
        if fr[d, F_I] < fr[d, F_NMOVES] and fr[d, F_ALPHA] < fr[d, F_BETA]:
            c = mv[d, fr[d, F_I]]
            player = fr[d, F_PLAYER]
            hands[player] ^= 1 << c
            n = fr[d, F_N]
            if n == 0:
                nled = c >> 3
                nbv = win[c]
                nbc = c
                nbs = player
            else:
                nled = fr[d, F_LED]
                v = trick_value(c, nled, mode)
                if v > fr[d, F_BVAL]:
                    nbv = v
                    nbc = c
                    nbs = player
                else:
                    nbv = fr[d, F_BVAL]
                    nbc = fr[d, F_BCARD]
                    nbs = fr[d, F_BSEAT]
            pts = fr[d, F_TPTS] + points[c]
            if n == players - 1:
                if (hands[0] | hands[1] | hands[2] | hands[3]) == 0:
                    pts += last_bonus
                wteam = _team(nbs, players, taker)
                gain = pts if wteam == max_team else 0
                fr[d + 1, F_N] = 0
                fr[d + 1, F_LEADER] = nbs
                fr[d + 1, F_LED] = 0
                fr[d + 1, F_BCARD] = 0
                fr[d + 1, F_BVAL] = 0
                fr[d + 1, F_BSEAT] = 0
                fr[d + 1, F_TPTS] = 0
                fr[d + 1, F_WON0] = fr[d, F_WON0] | (1 if wteam == 0 else 0)
                fr[d + 1, F_WON1] = fr[d, F_WON1] | (1 if wteam == 1 else 0)
            else:
                gain = 0
                fr[d + 1, F_N] = n + 1
                fr[d + 1, F_LEADER] = fr[d, F_LEADER]
                fr[d + 1, F_LED] = nled
                fr[d + 1, F_BCARD] = nbc
                fr[d + 1, F_BVAL] = nbv
                fr[d + 1, F_BSEAT] = nbs
                fr[d + 1, F_TPTS] = pts
                fr[d + 1, F_WON0] = fr[d, F_WON0]
                fr[d + 1, F_WON1] = fr[d, F_WON1]
            ga = fr[d, F_ALPHA]
            gb = fr[d, F_BETA]
            # Principal variation search: after the first move, a null window first.
            if fr[d, F_I] > 0 and gb - ga > 1 and fr[d, F_RESEARCH] == 0:
                fr[d, F_SCOUT] = 1
                if fr[d, F_MAX]:
                    gb = ga + 1
                else:
                    ga = gb - 1
            else:
                fr[d, F_SCOUT] = 0
            fr[d, F_RESEARCH] = 0
            fr[d + 1, F_ALPHA] = ga - gain
            fr[d + 1, F_BETA] = gb - gain
            fr[d + 1, F_RPTS] = fr[d, F_RPTS] - points[c]
            fr[d, F_GAIN] = gain
            d += 1
            entering = True
            continue
        # -- all moves tried (or cut off): store and return
        best = fr[d, F_BEST]
        if fr[d, F_ALPHA] >= fr[d, F_BETA] and fr[d, F_BMOVE] >= 0:
            if fr[d, F_N] == 0:
                history[0, fr[d, F_BMOVE]] += (33 - d) * (33 - d)
            if killers[d, 0] != fr[d, F_BMOVE]:
                killers[d, 1] = killers[d, 0]
                killers[d, 0] = fr[d, F_BMOVE]
        slot = fr[d, F_SLOT]
        if slot >= 0:
            data = _entry(best, fr[d, F_A0], fr[d, F_B0], fr[d, F_BMOVE], gen)
            tt[slot, 0] = fr[d, F_KEY] ^ data
            tt[slot, 1] = data
        ret = best
        if d == 0:
            return ret
        d -= 1


@njit(cache=True, nogil=True)
def solve_window(hands: np.ndarray, n_in_trick: int, leader: int, led: int, best_card: int,
                 best_value: int, best_seat: int, trick_points: int, won0: int, won1: int,
                 params: np.ndarray, tt: np.ndarray, gen: int,
                 stats: np.ndarray, guess: int, history: np.ndarray, killers: np.ndarray
                 ) -> int:
    """The exact value. With a ``guess`` (>= 0; the value of a sibling move), an aspiration
    window of ±``ASPIRATION`` points around it first, then windows of ``WIDEN`` points
    stepping from the value it failed at; without one, the full window. (Measured on the
    40 bench deals, every root card: half the nodes of bisection by null windows; 7%
    fewer than widening straight to the open side, and fewer than steps of 4, 6, 10, 12
    or 16, or steps doubling.)"""
    a = guess - ASPIRATION if guess > ASPIRATION else -1
    b = guess + ASPIRATION if guess >= 0 else 0x1FFF
    while True:
        stats[1] += 1
        g = search(hands, n_in_trick, leader, led, best_card, best_value, best_seat,
                   trick_points, won0, won1, a, b, params, tt, gen, stats,
                   history, killers)
        if stats[S_ABORTED] != 0:
            return -1
        if a < g < b or (g <= a and a < 0) or (g >= b and b >= 0x1FFF):
            return g
        if g <= a:
            a, b = g - WIDEN if g > WIDEN else -1, g + 1
        else:
            a, b = g - 1, g + WIDEN


@njit(cache=True)
def root_representatives(hands: np.ndarray, n_in_trick: int, leader: int, led: int,
                         best_card: int, best_value: int, best_seat: int,
                         params: np.ndarray, reps: np.ndarray) -> int:
    """The legal cards of the player to move (returned), and in ``reps`` for each of them
    the card whose value it shares: itself, or the strongest card of its run of
    equivalent point-less cards (one search answers for the run)."""
    mode = params[P_MODE]
    players = params[P_PLAYERS]
    player = (leader + n_in_trick) % players
    legal = legal_mask(hands[player], n_in_trick, led, best_card, best_value, best_seat,
                       player, mode, params[P_UNDERTRUMP], params[P_PARTNER_FREE], players)
    zero_mask = _zero_mask(mode, params[P_POINTS])
    remaining = hands[0] | hands[1] | hands[2] | hands[3]
    drop = _equivalent_zero_cards(legal, remaining, (1 << best_card) if n_in_trick else 0,
                                  zero_mask)
    m = legal
    while m != 0:
        c = lowest_bit_index(m)
        m &= m - 1
        reps[c] = c
        if (drop >> c) & 1:
            order = ORDER_TABLE[mode, c >> 3]
            i = 0
            while order[i] != c:
                i += 1
            while True:  # the nearest stronger legal card kept stands for the run
                i -= 1
                r = order[i]
                if (legal >> r) & 1 and (drop >> r) & 1 == 0:
                    reps[c] = r
                    break
    return legal


@njit(cache=True, nogil=True)
def move_values(hands: np.ndarray, n_in_trick: int, leader: int, led: int, best_card: int,
                best_value: int, best_seat: int, trick_points: int, won0: int, won1: int,
                params: np.ndarray, tt: np.ndarray, gen: int,
                stats: np.ndarray, out_cards: np.ndarray, out_values: np.ndarray,
                only: int, guess: int, history: np.ndarray, killers: np.ndarray) -> int:
    """Exact value (for ``max_team``) of every legal card of the player to move that is in
    ``only``, equivalent cards included; ``guess``: a sibling's value (-1: none). Returns
    how many were written. Runs without the GIL: threads may solve root cards side by
    side, each with its own table and move-ordering memory."""
    mode = params[P_MODE]
    players = params[P_PLAYERS]
    win = WIN_TABLE[mode]
    player = (leader + n_in_trick) % players
    own = hands[player]
    legal = legal_mask(own, n_in_trick, led, best_card, best_value, best_seat, player, mode,
                       params[P_UNDERTRUMP], params[P_PARTNER_FREE], players) & only
    n = 0
    m = legal
    while m != 0:
        c = lowest_bit_index(m)
        m &= m - 1
        bit = 1 << c
        # each root card its own move-ordering memory: leads that cut off under another
        # root card mislead (on the slowest fresh deals, 3-25 % faster per deal)
        history[:, :] = 0
        killers[:, :] = -1
        hands[player] ^= bit
        if n_in_trick == 0:
            nled, nbv, nbc, nbs = c >> 3, win[c], c, player
        else:
            nled = led
            v = trick_value(c, led, mode)
            if v > best_value:
                nbv, nbc, nbs = v, c, player
            else:
                nbv, nbc, nbs = best_value, best_card, best_seat
        pts = trick_points + POINTS_TABLE[params[P_POINTS], c]
        if n_in_trick == players - 1:
            if (hands[0] | hands[1] | hands[2] | hands[3]) == 0:
                pts += params[P_LAST_BONUS]
            wteam = _team(nbs, players, params[P_TAKER])
            gain = pts if wteam == params[P_MAX_TEAM] else 0
            value = gain + solve_window(hands, 0, nbs, 0, 0, 0, 0, 0,
                                        won0 | (1 if wteam == 0 else 0),
                                        won1 | (1 if wteam == 1 else 0),
                                        params, tt, gen, stats, guess - gain,
                                        history, killers)
        else:
            value = solve_window(hands, n_in_trick + 1, leader, nled, nbc, nbv, nbs, pts,
                                 won0, won1, params, tt, gen, stats, guess,
                                 history, killers)
        if stats[S_ABORTED] != 0:
            return n  # the cards so far; the hands are the caller's copy
        hands[player] ^= bit
        guess = value
        out_cards[n] = c
        out_values[n] = value
        n += 1
    return n


# -- random rollouts ----------------------------------------------------------------------


@njit(cache=True)
def _xorshift(state: np.ndarray) -> np.uint64:
    x = state[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    state[0] = x
    return x


@njit(cache=True)
def rollouts(hands_in: np.ndarray, n_in_trick: int, leader: int, led: int, best_card: int,
             best_value: int, best_seat: int, trick_points: int, params: np.ndarray,
             count: int, seed: int, totals: np.ndarray) -> None:
    """Play ``count`` random legal games to the end from the position; add each team's
    card points (dix de der included) to ``totals``."""
    mode = params[P_MODE]
    players = params[P_PLAYERS]
    win = WIN_TABLE[mode]
    points = POINTS_TABLE[params[P_POINTS]]
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64((seed * 2654435761 + 88172645463325252) & 0x7FFFFFFFFFFFFFFF) | np.uint64(1)
    hands = np.empty(4, dtype=np.int64)
    for _ in range(count):
        for s in range(4):
            hands[s] = hands_in[s]
        n = n_in_trick
        ld = leader
        lsuit = led
        bc = best_card
        bv = best_value
        bs = best_seat
        tp = trick_points
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        while remaining != 0:
            player = (ld + n) % players
            legal = legal_mask(hands[player], n, lsuit, bc, bv, bs, player, mode,
                               params[P_UNDERTRUMP], params[P_PARTNER_FREE], players)
            k = int(_xorshift(rng) % np.uint64(popcount(legal)))
            m = legal
            for _j in range(k):
                m &= m - 1
            c = lowest_bit_index(m)
            hands[player] ^= 1 << c
            remaining ^= 1 << c
            if n == 0:
                lsuit = c >> 3
                bc = c
                bv = win[c]
                bs = player
            else:
                v = trick_value(c, lsuit, mode)
                if v > bv:
                    bv = v
                    bc = c
                    bs = player
            tp += points[c]
            n += 1
            if n == players:
                if remaining == 0:
                    tp += params[P_LAST_BONUS]
                wteam = bs & 1 if players == 4 else (0 if bs == params[P_TAKER] else 1)
                totals[wteam] += tp
                ld = bs
                n = 0
                tp = 0
