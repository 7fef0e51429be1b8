/*
 * Overflow heap for pauses longer than the batch table: a binary min-heap on
 * (tick, scheduling sequence), so contexts leave it in exactly the order a
 * table long enough would have given them.
 */
#include "ks_internal.h"

#include <stdlib.h>

static bool before(const ks_context *a, const ks_context *b)
{
    return a->when != b->when ? a->when < b->when : a->seq < b->seq;
}

static void place(ks_heap *h, size_t i, ks_context *c)
{
    h->items[i] = c;
    c->heap_index = i;
}

static void sift_up(ks_heap *h, size_t i)
{
    ks_context *c = h->items[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(c, h->items[parent]))
            break;
        place(h, i, h->items[parent]);
        i = parent;
    }
    place(h, i, c);
}

static void sift_down(ks_heap *h, size_t i)
{
    ks_context *c = h->items[i];
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        ks_context *bc = c;
        if (l < h->len && before(h->items[l], bc)) {
            best = l;
            bc = h->items[l];
        }
        if (l + 1 < h->len && before(h->items[l + 1], bc)) {
            best = l + 1;
            bc = h->items[l + 1];
        }
        if (best == i)
            break;
        place(h, i, bc);
        i = best;
    }
    place(h, i, c);
}

bool ks_heap_push(ks_heap *h, ks_context *c)
{
    if (h->len == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        ks_context **items = realloc(h->items, cap * sizeof *items);
        if (!items)
            return false;
        h->items = items;
        h->cap = cap;
    }
    place(h, h->len++, c);
    sift_up(h, h->len - 1);
    return true;
}

ks_context *ks_heap_pop(ks_heap *h)
{
    if (!h->len)
        return NULL;
    ks_context *top = h->items[0];
    if (--h->len) {
        place(h, 0, h->items[h->len]);
        sift_down(h, 0);
    }
    return top;
}

void ks_heap_remove(ks_heap *h, ks_context *c)
{
    size_t i = c->heap_index;
    if (i >= h->len || h->items[i] != c)
        return;
    if (i == --h->len)
        return;
    ks_context *moved = h->items[h->len];
    place(h, i, moved);
    sift_down(h, i);
    sift_up(h, moved->heap_index);
}

void ks_heap_free(ks_heap *h)
{
    free(h->items);
    h->items = NULL;
    h->len = h->cap = 0;
}
