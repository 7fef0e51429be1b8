/* A map from stream id to stream index: open addressing over a power-of-two
 * table kept at most half full, so lookups and inserts stay O(1) for the
 * hundreds of thousands of work-group streams a GPU trace can hold. */
#ifndef CGM_FORMATS_ID_MAP_H
#define CGM_FORMATS_ID_MAP_H

#include <stddef.h>
#include <stdint.h>

struct id_map {
    uint32_t *keys;
    uint32_t *vals;      /* index + 1; 0 marks an empty slot */
    size_t size, count;
};

/* Adds ID -> INDEX. Returns 0, 1 when ID is already there (nothing
 * changes), or -1 when out of memory. */
int id_map_put(struct id_map *m, uint32_t id, uint32_t index);
/* The index of ID, or -1. */
long id_map_get(const struct id_map *m, uint32_t id);
void id_map_free(struct id_map *m);

#endif
