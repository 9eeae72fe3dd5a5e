/* volcano-scheduler.conf into the scheduler configuration model. Stricter than Volcano's loader
 * (which ignores unknown keys): a typo in a switch name is an error with its line, not a no-op. */
#include "adapters/objects/scheduler_conf.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"

static void parse_actions(struct fields *f, json_t *root, struct sched_conf *conf)
{
    const char *list;
    if (!field_string(f, root, "actions", "actions", true, &list))
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        char *end = tok + strlen(tok);
        while (end > tok && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (!*tok)
            continue;
        if (!action_name_known(tok)) {
            char known[256];
            field_error(f, root, "actions", "actions", "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported actions: %s", tok,
                        action_names_known(known, sizeof known));
            continue;
        }
        if (conf->nactions == CONF_MAX_ACTIONS) {
            field_invalid(f, root, "actions", "actions", "too many actions");
            return;
        }
        snprintf(conf->actions[conf->nactions++], CONF_NAME_MAX, "%s", tok);
    }
    if (conf->nactions == 0)
        field_invalid(f, root, "actions", "actions", "names no action");
}

static bool switch_by_key(const char *key, enum plugin_switch *sw)
{
    for (int i = 0; i < SW_COUNT; i++) {
        if (strcmp(plugin_switch_key((enum plugin_switch)i), key) == 0) {
            *sw = (enum plugin_switch)i;
            return true;
        }
    }
    return false;
}

static void parse_plugin(struct fields *f, json_t *opt, const char *path, struct plugin_conf *pc)
{
    char p[FIELD_PATH_MAX];
    const char *name;
    field_path(p, path, "name");
    if (!field_string(f, opt, "name", p, true, &name))
        return;
    if (!plugin_name_known(name)) {
        char known[512];
        field_error(f, opt, "name", p, "FieldValueNotSupported", "Unsupported value: \"%s\": supported plugins: %s",
                    name, plugin_names_known(known, sizeof known));
        return;
    }
    plugin_conf_init(pc, name);
    const char *key;
    json_t *v;
    json_object_foreach(opt, key, v)
    {
        enum plugin_switch sw;
        field_path(p, path, key);
        if (strcmp(key, "name") == 0)
            continue;
        if (strcmp(key, "arguments") == 0) {
            json_t *args;
            if (field_object(f, opt, key, p, false, &args) && args)
                pc->arguments = json_incref(args);
        } else if (switch_by_key(key, &sw)) {
            field_bool(f, opt, key, p, &pc->enabled[sw]);
        } else {
            field_error(f, opt, key, p, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": a plugin option is name, arguments or an enable switch such as "
                        "enableJobOrder",
                        key);
        }
    }
}

static void parse_tiers(struct fields *f, json_t *root, struct sched_conf *conf)
{
    json_t *tiers;
    if (!field_array(f, root, "tiers", "tiers", true, &tiers))
        return;
    if (json_array_size(tiers) > CONF_MAX_TIERS) {
        field_invalid(f, root, "tiers", "tiers", "at most 4 tiers");
        return;
    }
    size_t t;
    json_t *tier;
    json_array_foreach(tiers, t, tier)
    {
        char tp[FIELD_PATH_MAX], pp[FIELD_PATH_MAX];
        json_t *plugins;
        field_path_index(tp, "tiers", t);
        field_path(pp, tp, "plugins");
        if (!json_is_object(tier) || !field_array(f, tier, "plugins", pp, true, &plugins))
            continue;
        struct tier_conf *tc = &conf->tiers[conf->ntiers++];
        size_t i;
        json_t *opt;
        json_array_foreach(plugins, i, opt)
        {
            char op[FIELD_PATH_MAX];
            field_path_index(op, pp, i);
            if (!json_is_object(opt) || tc->nplugins == CONF_MAX_PLUGINS) {
                field_error_at_index(f, plugins, i, op, "FieldValueInvalid",
                                     "Invalid value: a plugin must be an object with a name (at most 16 per tier)");
                continue;
            }
            parse_plugin(f, opt, op, &tc->plugins[tc->nplugins]);
            if (tc->plugins[tc->nplugins].name[0])
                tc->nplugins++;
        }
    }
}

static void parse_configurations(struct fields *f, json_t *root, struct sched_conf *conf)
{
    json_t *list;
    if (!field_array(f, root, "configurations", "configurations", false, &list) || !list)
        return;
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c)
    {
        char p[FIELD_PATH_MAX], np[FIELD_PATH_MAX], ap[FIELD_PATH_MAX];
        const char *name;
        json_t *args;
        field_path_index(p, "configurations", i);
        field_path(np, p, "name");
        field_path(ap, p, "arguments");
        if (!json_is_object(c) || !field_string(f, c, "name", np, true, &name) ||
            !field_object(f, c, "arguments", ap, false, &args))
            continue;
        int a;
        for (a = 0; a < conf->nactions; a++)
            if (strcmp(conf->actions[a], name) == 0)
                break;
        if (a == conf->nactions) {
            field_invalid(f, c, "name", np, "not an action listed in `actions`");
            continue;
        }
        if (args) {
            json_decref(conf->action_args[a]);
            conf->action_args[a] = json_incref(args);
        }
    }
}

/* Caldera's node zones (seed 000): nodeZoneLabel (default node-zone) and nodeZones, each a
 * schedulerName jobs use to pick it and the label value of its nodes. */
static void parse_zones(struct fields *f, json_t *root, struct sched_conf *conf)
{
    const char *label = NULL;
    json_t *zones;
    if (field_string(f, root, "nodeZoneLabel", "nodeZoneLabel", false, &label) && label)
        snprintf(conf->zone_label, sizeof conf->zone_label, "%s", label);
    if (!field_array(f, root, "nodeZones", "nodeZones", false, &zones) || !zones)
        return;
    size_t i;
    json_t *z;
    json_array_foreach(zones, i, z)
    {
        char p[FIELD_PATH_MAX], np[FIELD_PATH_MAX], vp[FIELD_PATH_MAX];
        const char *name = NULL, *value = NULL;
        field_path_index(p, "nodeZones", i);
        field_path(np, p, "schedulerName");
        field_path(vp, p, "zone");
        if (!json_is_object(z) || !field_string(f, z, "schedulerName", np, true, &name) ||
            !field_string(f, z, "zone", vp, true, &value))
            continue;
        if (conf->nzones == CONF_MAX_ZONES) {
            field_invalid(f, root, "nodeZones", "nodeZones", "at most 8 zones");
            return;
        }
        bool taken = strcmp(name, DEFAULT_SCHEDULER_NAME) == 0;
        for (int k = 0; k < conf->nzones; k++)
            if (strcmp(conf->zones[k].scheduler_name, name) == 0 || strcmp(conf->zones[k].value, value) == 0)
                taken = true;
        if (!dns1123_label(name) || !*value || taken) {
            field_invalid(f, z, "schedulerName", np,
                          "each zone needs its own schedulerName (a DNS label other than volcano) and zone value");
            continue;
        }
        snprintf(conf->zones[conf->nzones].scheduler_name, CONF_NAME_MAX, "%s", name);
        snprintf(conf->zones[conf->nzones].value, CONF_NAME_MAX, "%s", value);
        conf->nzones++;
    }
}

int sched_conf_parse(const char *data, size_t len, struct sched_conf *conf, struct api_status *st)
{
    struct intake in;
    memset(conf, 0, sizeof *conf);
    snprintf(conf->zone_label, sizeof conf->zone_label, "node-zone");
    if (intake_parse(data, len, INTAKE_YAML, &in, st) != 0)
        return -1;
    if (in.ndocs != 1 || !json_is_object(in.docs[0].root)) {
        intake_free(&in);
        return api_fail(st, 400, "BadRequest", "a scheduler conf is one YAML mapping with actions and tiers");
    }
    struct fields f = {&in.docs[0], st};
    json_t *root = in.docs[0].root;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        (void)v;
        if (strcmp(key, "actions") != 0 && strcmp(key, "tiers") != 0 && strcmp(key, "configurations") != 0 &&
            strcmp(key, "nodeZoneLabel") != 0 && strcmp(key, "nodeZones") != 0)
            field_error(&f, root, key, key, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": a scheduler conf has actions, tiers, configurations, and "
                        "Caldera's nodeZoneLabel and nodeZones",
                        key);
    }
    parse_actions(&f, root, conf);
    parse_tiers(&f, root, conf);
    parse_configurations(&f, root, conf);
    parse_zones(&f, root, conf);
    intake_free(&in);
    if (st->ncauses > 0) {
        sched_conf_free(conf);
        return api_fail_invalid(st, "scheduler conf", "");
    }
    return 0;
}
