/* The names of a kind (engine/kind.h): its own and the reference cuzk's. */
#include <string.h>

#include "engine/kind.h"

const char *cuzk_kind_label(const struct cuzk_kind *k) { return k->label ? k->label : k->name; }

const char *cuzk_kind_display(const struct cuzk_kind *k) {
    return k->display ? k->display : k->name;
}

const struct cuzk_kind_alias *cuzk_kind_alias_find(const struct cuzk_kind *k, const char *id) {
    for (size_t i = 0; i < k->n_aliases; i++)
        if (!strcmp(k->aliases[i].id, id)) return &k->aliases[i];
    return NULL;
}

const char *cuzk_kind_alias_of(const struct cuzk_kind *k, const char *circuit) {
    for (size_t i = 0; i < k->n_aliases; i++)
        if (k->aliases[i].circuit && !strcmp(k->aliases[i].circuit, circuit))
            return k->aliases[i].id;
    return NULL;
}
