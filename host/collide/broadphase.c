/* Broad phase of the built-in contact generation: a uniform hash grid.
 *
 * The cell edge is the largest AABB extent, so every item is filed once, in the cell of its AABB centre,
 * and two AABBs can only overlap when their cells are neighbours (27 cells). Cells are hashed into a
 * table of 2n slots and items are bucketed by slot with a counting sort: O(n) expected time and memory,
 * deterministic output (pairs in item order, then neighbour order). The scratch lives in ctn_pairs and only
 * grows, so calls with the item and pair counts of an earlier one allocate nothing. */
#include "collide/collide.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A cell coordinate as an int: a box far beyond the range of an int (or whose bounds are infinite, so that
 * its centre is NaN: a body at 1e38 m) goes to the outermost cell, or to cell 0, instead of a float-to-int
 * conversion that C leaves undefined. Every finite coordinate of a real scene is well inside. */
static int cell_index(float c) {
    if (c >= -1e9f && c <= 1e9f) return (int)c;
    return c > 0.0f ? 1000000000 : (c < 0.0f ? -1000000000 : 0);
}

static uint32_t cell_hash(int x, int y, int z) {
    return ((uint32_t)x * 73856093u) ^ ((uint32_t)y * 19349663u) ^ ((uint32_t)z * 83492791u);
}

static int overlap(const float *a, const float *b) {
    return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

/* Appends a pair to the growing array; returns 0 on out-of-memory. */
static int push_pair(ctn_pairs *p, int i, int j) {
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? (size_t)p->capacity * 2 : 1024;
        int *np = ctn__realloc(p->pairs, 2 * cap * sizeof *np);
        if (!np) return 0;
        p->pairs = np;
        p->capacity = (int)cap;
    }
    p->pairs[2 * p->count] = i;
    p->pairs[2 * p->count + 1] = j;
    p->count++;
    return 1;
}

void ctn__pairs_free(ctn_pairs *p) {
    ctn__free(p->pairs);
    ctn__free(p->cxyz);
    ctn__free(p->items);
    ctn__free(p->slot_of);
    ctn__free(p->start);
    ctn__free(p->fill);
    memset(p, 0, sizeof *p);
}

/* Grows *p (elements of `size` bytes) to n; 0 on out-of-memory (*p kept). */
static int grow_to(void *p, size_t n, size_t size) {
    void *q = ctn__realloc(*(void **)p, n * size);
    if (!q) return 0;
    *(void **)p = q;
    return 1;
}

/* Room for n items and `slots` hash slots in the scratch (kept between calls, only grows). */
static int reserve(ctn_pairs *p, int n, size_t slots) {
    if (n > p->item_capacity) {
        size_t cap = (size_t)n + (size_t)n / 2;
        if (!grow_to(&p->cxyz, 3 * cap, sizeof *p->cxyz) || !grow_to(&p->items, cap, sizeof *p->items) ||
            !grow_to(&p->slot_of, cap, sizeof *p->slot_of))
            return 0;
        p->item_capacity = (int)cap;
    }
    if (slots + 1 > p->slot_capacity) {
        if (!grow_to(&p->start, slots + 1, sizeof *p->start) || !grow_to(&p->fill, slots + 1, sizeof *p->fill)) return 0;
        p->slot_capacity = slots + 1;
    }
    return 1;
}

int ctn__broadphase(int n, const float *aabb, ctn_pairs *out) {
    out->count = 0;
    if (n < 2) return 1;
    float cell = 0.0f;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            float e = aabb[6 * i + 3 + k] - aabb[6 * i + k];
            if (e > cell) cell = e;
        }
    if (!(cell > 0.0f)) cell = 1.0f;
    float inv = 1.0f / cell;
    size_t slots = 1;
    while (slots < 2 * (size_t)n) slots <<= 1;
    uint32_t mask = (uint32_t)(slots - 1);
    if (!reserve(out, n, slots)) return 0;
    int *cxyz = out->cxyz, *start = out->start, *items = out->items, *fill = out->fill;
    uint32_t *slot_of = out->slot_of;
    memset(start, 0, (slots + 1) * sizeof *start);
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k)
            cxyz[3 * i + k] = cell_index(floorf(0.5f * (aabb[6 * i + k] + aabb[6 * i + 3 + k]) * inv));
        slot_of[i] = cell_hash(cxyz[3 * i], cxyz[3 * i + 1], cxyz[3 * i + 2]) & mask;
        start[slot_of[i] + 1]++;
    }
    for (size_t s = 0; s < slots; ++s) start[s + 1] += start[s];
    memcpy(fill, start, slots * sizeof *fill);
    for (int i = 0; i < n; ++i) items[fill[slot_of[i]]++] = i; /* ascending i inside a slot */
    for (int i = 0; i < n; ++i) {
        const int *c = &cxyz[3 * i];
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                    uint32_t s = cell_hash(x, y, z) & mask;
                    for (int e = start[s]; e < start[s + 1]; ++e) {
                        int j = items[e];
                        if (j <= i) continue;
                        /* slots are shared by hash collisions: take j only from its own cell */
                        if (cxyz[3 * j] != x || cxyz[3 * j + 1] != y || cxyz[3 * j + 2] != z) continue;
                        if (!overlap(&aabb[6 * i], &aabb[6 * j])) continue;
                        if (!push_pair(out, i, j)) return 0;
                    }
                }
    }
    return 1;
}
