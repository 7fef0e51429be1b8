/* The AMDGPU kernel metadata note (code object v3+): a MessagePack map whose
 * "amdhsa.kernels" array describes each kernel (arguments, segment sizes,
 * register counts).  Read with msgpack-c; every field is checked for type. */
#include "tracegen/si/si_elf.h"

#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int key_is(const msgpack_object *k, const char *s)
{
    size_t n = strlen(s);
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, s, n) == 0;
}

static const msgpack_object *lookup(const msgpack_object *map, const char *key)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (key_is(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    return NULL;
}

static void copy_str(char *dst, size_t cap, const msgpack_object *o)
{
    dst[0] = '\0';
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return;
    size_t n = o->via.str.size < cap - 1 ? o->via.str.size : cap - 1;
    memcpy(dst, o->via.str.ptr, n);
    dst[n] = '\0';
}

/* Unsigned field; missing fields read as 0, other types are an error. */
static int get_u32(const msgpack_object *map, const char *key, uint32_t *out)
{
    const msgpack_object *o = lookup(map, key);
    *out = 0;
    if (!o)
        return 0;
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > UINT32_MAX)
        return -1;
    *out = (uint32_t)o->via.u64;
    return 0;
}

static int read_args(const msgpack_object *list, struct si_kernel *k, char *err, size_t errlen)
{
    if (!list) {
        k->nargs = 0;
        return 0;
    }
    if (list->type != MSGPACK_OBJECT_ARRAY) {
        snprintf(err, errlen, "kernel %s: .args is not an array", k->name);
        return -1;
    }
    k->nargs = list->via.array.size;
    k->args = calloc(k->nargs ? k->nargs : 1, sizeof *k->args);
    if (!k->args)
        return -1;
    for (size_t i = 0; i < k->nargs; i++) {
        const msgpack_object *a = &list->via.array.ptr[i];
        struct si_kernel_arg *arg = &k->args[i];
        if (a->type != MSGPACK_OBJECT_MAP || get_u32(a, ".offset", &arg->offset) ||
            get_u32(a, ".size", &arg->size) || !lookup(a, ".value_kind")) {
            snprintf(err, errlen, "kernel %s: argument %zu lacks .offset/.size/.value_kind",
                     k->name, i);
            return -1;
        }
        copy_str(arg->name, sizeof arg->name, lookup(a, ".name"));
        copy_str(arg->type_name, sizeof arg->type_name, lookup(a, ".type_name"));
        copy_str(arg->value_kind, sizeof arg->value_kind, lookup(a, ".value_kind"));
        copy_str(arg->address_space, sizeof arg->address_space, lookup(a, ".address_space"));
        arg->is_hidden = strncmp(arg->value_kind, "hidden_", 7) == 0;
    }
    return 0;
}

static int read_kernel(const msgpack_object *m, struct si_program *p, char *err, size_t errlen)
{
    char name[SI_NAME_MAX];
    copy_str(name, sizeof name, lookup(m, ".name"));
    struct si_kernel *k = NULL;
    for (size_t i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            k = &p->kernels[i];
    if (!k) {
        snprintf(err, errlen, "metadata names kernel '%s' that has no descriptor %s.kd",
                 name, name);
        return -1;
    }
    if (get_u32(m, ".kernarg_segment_size", &k->kernarg_segment_size) ||
        get_u32(m, ".kernarg_segment_align", &k->kernarg_segment_align) ||
        get_u32(m, ".sgpr_count", &k->sgpr_count) || get_u32(m, ".vgpr_count", &k->vgpr_count) ||
        get_u32(m, ".wavefront_size", &k->wavefront_size) ||
        get_u32(m, ".max_flat_workgroup_size", &k->max_flat_workgroup_size)) {
        snprintf(err, errlen, "kernel %s: a numeric metadata field has the wrong type", name);
        return -1;
    }
    free(k->args);
    k->args = NULL;
    return read_args(lookup(m, ".args"), k, err, errlen);
}

int si_metadata_parse(const void *data, size_t size, struct si_program *p,
                      char *err, size_t errlen)
{
    msgpack_unpacked doc;
    size_t off = 0;
    int rc = -1;
    msgpack_unpacked_init(&doc);
    if (msgpack_unpack_next(&doc, data, size, &off) != MSGPACK_UNPACK_SUCCESS) {
        snprintf(err, errlen, "metadata note is not a MessagePack document");
        goto out;
    }
    const msgpack_object *list = lookup(&doc.data, "amdhsa.kernels");
    if (!list || list->type != MSGPACK_OBJECT_ARRAY) {
        snprintf(err, errlen, "metadata note has no amdhsa.kernels array");
        goto out;
    }
    for (uint32_t i = 0; i < list->via.array.size; i++) {
        if (list->via.array.ptr[i].type != MSGPACK_OBJECT_MAP) {
            snprintf(err, errlen, "amdhsa.kernels[%u] is not a map", i);
            goto out;
        }
        if (read_kernel(&list->via.array.ptr[i], p, err, errlen))
            goto out;
    }
    rc = 0;
out:
    msgpack_unpacked_destroy(&doc);
    return rc;
}

int si_metadata_target(const void *data, size_t size, char *out, size_t cap)
{
    msgpack_unpacked doc;
    size_t off = 0;
    int rc = -1;
    msgpack_unpacked_init(&doc);
    if (msgpack_unpack_next(&doc, data, size, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *t = lookup(&doc.data, "amdhsa.target");
        if (t && t->type == MSGPACK_OBJECT_STR) {
            copy_str(out, cap, t);
            rc = 0;
        }
    }
    msgpack_unpacked_destroy(&doc);
    return rc;
}
