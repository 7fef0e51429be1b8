/* The registry of protocols (cgm/coh_protocols.def). */
#include "coh_internal.h"

#include <string.h>

#define PROTOCOL(id) extern const struct cgm_coh_protocol cgm_coh_##id;
#include "cgm/coh_protocols.def"
#undef PROTOCOL

const struct cgm_coh_protocol *const cgm_coh_protocols[CGM_COH_NPROTOCOLS] = {
#define PROTOCOL(id) &cgm_coh_##id,
#include "cgm/coh_protocols.def"
#undef PROTOCOL
};

const struct cgm_coh_protocol *cgm_coh_protocol_find(const char *name)
{
    for (unsigned i = 0; i < CGM_COH_NPROTOCOLS; i++)
        if (!strcmp(cgm_coh_protocols[i]->name, name))
            return cgm_coh_protocols[i];
    return NULL;
}

const char *cgm_coh_protocol_list(void)
{
    static const char list[] = ""
#define PROTOCOL(id) ", " #id
#define PROTOCOL_NAMED(id, name) ", " name
#include "cgm/coh_protocols.def"
#undef PROTOCOL_NAMED
#undef PROTOCOL
        ;
    return list + 2;
}

const char *cgm_coh_state_name(const struct cgm_coh_protocol *p, unsigned st)
{
    return st < p->nstates ? p->state_names[st] : "?";
}

const char *cgm_coh_check_census(const struct cgm_coh_protocol *p, const struct cgm_coh_census *census)
{
    while (!p->invariant && p->extends)
        p = p->extends;
    return p->invariant ? p->invariant(census) : NULL;
}
