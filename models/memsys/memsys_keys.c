/* The memory system's key rows (cgm/memsys_keys.def) over struct
 * cgm_memsys_config: the one place their defaults live. */
#include "cgm/memsys.h"

#include <stdlib.h>

#define ROW(key, kind, field, def_, min_, max_, doc_)                                                      \
    { .section = "memsys", .name = #key, .type = (kind) | CGM_KEY_U32,                                   \
      .offset = offsetof(struct cgm_memsys_config, field), .def = def_, .min = min_, .max = max_, .doc = doc_ },
#define NONE(key, kind, field, def_, min_, max_, doc_)
#define SECTION_ROW(section_, key, kind, field, def_, min_, max_, doc_)                                     \
    { .section = section_, .name = #key, .type = (kind) | CGM_KEY_U32,                                   \
      .offset = offsetof(struct cgm_memsys_config, field), .def = def_, .min = min_, .max = max_, .doc = doc_ },
#define SECTION_NONE(section_, key, kind, field, def_, min_, max_, doc_)

const struct cgm_key cgm_memsys_keys[] = {
#define CGM_MEMSYS_KEY ROW
#define CGM_MEMSYS_GPU_KEY NONE
#define CGM_MEMSYS_XLAT_KEY SECTION_NONE
#include "cgm/memsys_keys.def"
#undef CGM_MEMSYS_KEY
#undef CGM_MEMSYS_GPU_KEY
#undef CGM_MEMSYS_XLAT_KEY
};
const struct cgm_key cgm_memsys_gpu_keys[] = {
#define CGM_MEMSYS_KEY NONE
#define CGM_MEMSYS_GPU_KEY ROW
#define CGM_MEMSYS_XLAT_KEY SECTION_ROW
#include "cgm/memsys_keys.def"
#undef CGM_MEMSYS_KEY
#undef CGM_MEMSYS_GPU_KEY
#undef CGM_MEMSYS_XLAT_KEY
};
const size_t cgm_memsys_nkeys = sizeof cgm_memsys_keys / sizeof cgm_memsys_keys[0];
const size_t cgm_memsys_gpu_nkeys = sizeof cgm_memsys_gpu_keys / sizeof cgm_memsys_gpu_keys[0];

/* Every row's field is an unsigned (CGM_KEY_U32). */
#define WIDTH(key, kind, field, def_, min_, max_, doc_)                                                    \
    _Static_assert(sizeof(((struct cgm_memsys_config *)0)->field) == sizeof(unsigned), #field " is unsigned");
#define SECTION_WIDTH(section_, key, kind, field, def_, min_, max_, doc_) WIDTH(key, kind, field, def_, min_, max_, doc_)
#define CGM_MEMSYS_KEY WIDTH
#define CGM_MEMSYS_GPU_KEY WIDTH
#define CGM_MEMSYS_XLAT_KEY SECTION_WIDTH
#include "cgm/memsys_keys.def"
#undef CGM_MEMSYS_KEY
#undef CGM_MEMSYS_GPU_KEY
#undef CGM_MEMSYS_XLAT_KEY

void cgm_memsys_key_defaults(const struct cgm_key *keys, size_t n, struct cgm_memsys_config *c)
{
    char err[256];
    if (cgm_keys_defaults(keys, n, c, err, sizeof err))
        abort(); /* a default its own row refuses: a programming error */
}
