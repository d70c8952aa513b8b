/* Graph colouring of constraints (docs/design.md section 4): no two joints of one colour share a dynamic body,
 * so a colour's joints can be solved in parallel without atomics. Static, kinematic and world bodies do
 * not create dependencies.
 *
 * Greedy first-fit over the joints in id order with a 64-bit mask of used colours per body: O(m) time,
 * one pass. A chain (joints i-1|i and i|i+1 alternate) gets 2 colours, a 4-neighbour grid 4 (rows and
 * columns each alternate). Joints that find no free colour within the budget go to the overflow group,
 * which the solvers process serially after the colours, so a body with many joints cannot multiply kernel
 * launches. */
#include "core/world.h"

#include <stdint.h>
#include <stdlib.h>

/* Lowest zero bit of m below limit, or limit when all are set. */
static int first_free(uint64_t m, int limit) {
    uint64_t free_bits = ~m;
    if (limit < 64) free_bits &= (((uint64_t)1 << limit) - 1);
    if (!free_bits) return limit;
    return __builtin_ctzll(free_bits);
}

int ctn__colour_joints_into(int m, const int *body_a, const int *body_b, const unsigned char *dynamic, int max_colours,
                            unsigned long long *used, int *colour) {
    int count = 0;
    for (int j = 0; j < m; ++j) {
        int a = body_a[j], b = body_b[j];
        int da = a >= 0 && (!dynamic || dynamic[a]), db = b >= 0 && (!dynamic || dynamic[b]);
        uint64_t mask = (da ? used[a] : 0) | (db ? used[b] : 0);
        int c = first_free(mask, max_colours);
        colour[j] = c;
        if (c < max_colours) {
            uint64_t bit = (uint64_t)1 << c;
            if (da) used[a] |= bit;
            if (db) used[b] |= bit;
            if (c + 1 > count) count = c + 1;
        }
    }
    return count;
}

int ctn__colour_joints(int m, const int *body_a, const int *body_b, int body_count, const unsigned char *dynamic,
                       int max_colours, int *colour) {
    unsigned long long *used = ctn__calloc((size_t)(body_count > 0 ? body_count : 1), sizeof *used);
    if (!used) return -1;
    int count = ctn__colour_joints_into(m, body_a, body_b, dynamic, max_colours, used, colour);
    ctn__free(used);
    return count;
}
