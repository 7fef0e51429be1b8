#include "formats/id_map.h"

#include <stdlib.h>

static size_t slot_of(uint32_t id, size_t mask)
{
    return (size_t)((id * 0x9e3779b1u) & mask);
}

static int insert(uint32_t *keys, uint32_t *vals, size_t mask, uint32_t id, uint32_t val)
{
    for (size_t i = slot_of(id, mask);; i = (i + 1) & mask) {
        if (!vals[i]) {
            keys[i] = id;
            vals[i] = val;
            return 0;
        }
        if (keys[i] == id)
            return 1;
    }
}

int id_map_put(struct id_map *m, uint32_t id, uint32_t index)
{
    if (index == UINT32_MAX)
        return -1;
    if (2 * (m->count + 1) > m->size) {
        size_t size = m->size ? 2 * m->size : 64;
        uint32_t *keys = malloc(size * sizeof *keys), *vals = calloc(size, sizeof *vals);
        if (!keys || !vals) {
            free(keys);
            free(vals);
            return -1;
        }
        for (size_t i = 0; i < m->size; i++)
            if (m->vals[i])
                insert(keys, vals, size - 1, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->size = size;
    }
    int rc = insert(m->keys, m->vals, m->size - 1, id, index + 1);
    if (rc == 0)
        m->count++;
    return rc;
}

long id_map_get(const struct id_map *m, uint32_t id)
{
    if (!m->size)
        return -1;
    size_t mask = m->size - 1;
    for (size_t i = slot_of(id, mask); m->vals[i]; i = (i + 1) & mask)
        if (m->keys[i] == id)
            return (long)m->vals[i] - 1;
    return -1;
}

void id_map_free(struct id_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = m->vals = NULL;
    m->size = m->count = 0;
}
