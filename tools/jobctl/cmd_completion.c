/* `jobctl completion bash`: a bash completion script made from the command and option tables (so
 * it never falls behind them): commands, options, -o's formats, and the names of jobs (and of pods
 * for logs) asked of the server with `jobctl get -o name`, using the -s, -n and --token already on
 * the line. `source <(jobctl completion bash)` in ~/.bashrc. */
#include <stdio.h>
#include <string.h>

#include "tools/jobctl/jobctl.h"

static const char SCRIPT_HEAD[] =
    "# bash completion for jobctl: source <(jobctl completion bash)\n"
    "_jobctl_names() {\n"
    "    # $1: get or pods; the connection options already on the line go along\n"
    "    local -a conn=()\n"
    "    local i w\n"
    "    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        case $w in\n"
    "        -s | --server | -n | --namespace | --token) conn+=(\"$w\" \"${COMP_WORDS[i + 1]}\") ;;\n"
    "        --server=* | --namespace=* | --token=*) conn+=(\"$w\") ;;\n"
    "        esac\n"
    "    done\n"
    "    \"${COMP_WORDS[0]}\" \"${conn[@]}\" \"$1\" -o name 2>/dev/null | sed 's|.*/||'\n"
    "}\n"
    "\n"
    "_jobctl() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}\n";

static const char SCRIPT_TAIL[] =
    "    local cmd= i w skip=0\n"
    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        if ((skip)); then skip=0; continue; fi\n"
    "        if [[ $w == -- ]]; then break; fi\n"
    "        if [[ $w == -* ]]; then\n"
    "            [[ $w != *=* && \" $valued \" == *\" $w \"* ]] && skip=1\n"
    "            continue\n"
    "        fi\n"
    "        cmd=$w\n"
    "        break\n"
    "    done\n"
    "    case $prev in\n"
    "    -o | --output) COMPREPLY=($(compgen -W \"json yaml wide name manifest\" -- \"$cur\")); return ;;\n"
    "    esac\n"
    "    if [[ \" $valued \" == *\" $prev \"* ]]; then\n"
    "        COMPREPLY=()\n"
    "        return\n"
    "    fi\n"
    "    if [[ $cur == -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
    "        return\n"
    "    fi\n"
    "    case $cmd in\n"
    "    '') COMPREPLY=($(compgen -W \"$commands help\" -- \"$cur\")) ;;\n"
    "    help) COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")) ;;\n"
    "    get | describe | delete | wait | events | history | suspend | resume | restart | terminate | complete)\n"
    "        COMPREPLY=($(compgen -W \"$(_jobctl_names get)\" -- \"$cur\")) ;;\n"
    "    logs | pods) COMPREPLY=($(compgen -W \"$(_jobctl_names get) $( [[ $cmd == logs ]] && _jobctl_names pods)\" "
    "-- \"$cur\")) ;;\n"
    "    config) COMPREPLY=($(compgen -W \"view\" -- \"$cur\")) ;;\n"
    "    completion) COMPREPLY=($(compgen -W \"bash\" -- \"$cur\")) ;;\n"
    "    queue) COMPREPLY=($(compgen -W \"create open close delete\" -- \"$cur\")) ;;\n"
    "    flow) COMPREPLY=($(compgen -W \"submit get delete retry\" -- \"$cur\")) ;;\n"
    "    token) COMPREPLY=($(compgen -W \"create list delete\" -- \"$cur\")) ;;\n"
    "    submit) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
    "    *) COMPREPLY=() ;;\n"
    "    esac\n"
    "}\n"
    "complete -F _jobctl jobctl\n";

static void print_lists(void)
{
    const struct jobctl_command *c;
    printf("    local commands=\"");
    for (int i = 0; (c = jobctl_command_at(i)); i++)
        printf("%s%s", i ? " " : "", c->name);
    printf("\"\n    local options=\"");
    const char *name;
    char letter;
    bool valued;
    for (size_t i = 0; args_option_at(i, &name, &letter, &valued); i++)
        printf("%s--%s", i ? " " : "", name);
    printf("\"\n    local valued=\"");
    bool first = true;
    for (size_t i = 0; args_option_at(i, &name, &letter, &valued); i++) {
        if (!valued)
            continue;
        printf("%s--%s", first ? "" : " ", name);
        if (letter)
            printf(" -%c", letter);
        first = false;
    }
    printf("\"\n");
}

int cmd_completion(const struct jobctl_args *a)
{
    if (strcmp(a->pos[0], "bash") != 0) {
        char why[300];
        snprintf(why, sizeof why, "no completion for \"%s\": only bash", a->pos[0]);
        return jobctl_usage_error(a->command_def, why);
    }
    fputs(SCRIPT_HEAD, stdout);
    print_lists();
    fputs(SCRIPT_TAIL, stdout);
    return JOBCTL_OK;
}
