/* dot.c — `eir dot`: the program as a Graphviz picture (DOT text, or SVG
 * through Graphviz's `dot` program). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "eir.h"

int eir_cli_dot(int argc, char **argv);
int eir_cli_load(const char *path, eir_program **p); /* tools/eir/main.c: an archive or the text form */

static const char DOT_HELP[] =
    "usage: eir dot MODEL.pt2 [-o OUT.dot] [--svg OUT.svg] [--collapse DEPTH] [--no-meta]\n"
    "\n"
    "Draw the program's graph as Graphviz DOT text (on stdout unless -o or --svg):\n"
    "one node per placeholder, call, getitem and output, labelled with the node name,\n"
    "operator and output type (f32[1, 64, s77]); edges follow the data flow. Inputs\n"
    "are styled by kind (user input, parameter, buffer, constant), buffer mutations\n"
    "are dashed edges into the output, calls are coloured by op family (legend\n"
    "included), nested graphs of cond / while_loop / map / scan are clusters linked\n"
    "to their call, and calls are grouped in clusters by module (nn_module_stack).\n"
    "\n"
    "options:\n"
    "  -o OUT.dot          write the DOT text to OUT.dot\n"
    "  --svg OUT.svg       render it with Graphviz (`dot -Tsvg`, Debian package\n"
    "                      graphviz) into OUT.svg\n"
    "  --collapse DEPTH    draw each module deeper than DEPTH as one box with its op\n"
    "                      count (0: one box per direct submodule of the model)\n"
    "  --no-meta           ignore node metadata: no module clusters, no stack-trace\n"
    "                      tooltips\n"
    "  --no-legend         leave out the legend\n"
    "  -h, --help          show this help\n";

static int dot_usage(const char *msg, const char *arg) {
    fprintf(stderr, "eir: dot: %s%s\nTry 'eir dot --help'.\n", msg, arg ? arg : "");
    return 2;
}

/* Pipe text into `dot -Tsvg -o svg`. */
static int render_svg(const char *text, const char *svg) {
    int fds[2];
    if (pipe(fds) != 0) { fprintf(stderr, "eir: dot: pipe: %s\n", strerror(errno)); return 1; }
    int errp[2];
    if (pipe(errp) != 0) { close(fds[0]); close(fds[1]); fprintf(stderr, "eir: dot: pipe: %s\n", strerror(errno)); return 1; }
    /* the child reports a failed exec on errp; a successful exec closes it */
    fcntl(errp[1], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { fprintf(stderr, "eir: dot: fork: %s\n", strerror(errno)); return 1; }
    if (pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]); close(fds[1]); close(errp[0]);
        execlp("dot", "dot", "-Tsvg", "-o", svg, (char *)NULL);
        int e = errno;
        if (write(errp[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(fds[0]);
    close(errp[1]);
    int child_errno = 0;
    ssize_t got = read(errp[0], &child_errno, sizeof child_errno);
    close(errp[0]);
    if (got == (ssize_t)sizeof child_errno) {
        close(fds[1]);
        waitpid(pid, NULL, 0);
        if (child_errno == ENOENT)
            fprintf(stderr, "eir: dot: --svg needs Graphviz's `dot` program, which is not installed "
                            "(install Graphviz: apt-get install graphviz); or write DOT text with -o and render it elsewhere\n");
        else fprintf(stderr, "eir: dot: cannot run Graphviz's `dot`: %s\n", strerror(child_errno));
        return 1;
    }
    size_t n = strlen(text), off = 0;
    while (off < n) {
        ssize_t w = write(fds[1], text + off, n - off);
        if (w < 0) { if (errno == EINTR) continue; break; }
        off += (size_t)w;
    }
    close(fds[1]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (off < n || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "eir: dot: Graphviz's `dot -Tsvg` failed writing '%s'\n", svg);
        return 1;
    }
    return 0;
}

int eir_cli_dot(int argc, char **argv) {
    const char *model = NULL, *out = NULL, *svg = NULL;
    eir_dot_options opt = {-1, false, false};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(DOT_HELP, stdout); return 0; }
        if (!strcmp(a, "-o") || !strcmp(a, "--svg") || !strcmp(a, "--collapse")) {
            if (i + 1 >= argc) return dot_usage("option needs a value: ", a);
            const char *val = argv[++i];
            if (!strcmp(a, "-o")) out = val;
            else if (!strcmp(a, "--svg")) svg = val;
            else {
                char *end;
                errno = 0;
                long d = strtol(val, &end, 10);
                if (!*val || *end || errno || d < 0 || d > 1000000) return dot_usage("--collapse needs a depth >= 0, got ", val);
                opt.collapse = (int)d;
            }
        } else if (!strcmp(a, "--no-meta")) opt.no_meta = true;
        else if (!strcmp(a, "--no-legend")) opt.no_legend = true;
        else if (a[0] == '-' && a[1]) return dot_usage("unknown option ", a);
        else if (!model) model = a;
        else return dot_usage("unexpected argument ", a);
    }
    if (!model) return dot_usage("give MODEL.pt2", NULL);
    eir_program *p = NULL;
    if (eir_cli_load(model, &p)) return 1;
    char *text = NULL;
    if (eir_program_dot(p, &opt, &text) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(p));
        eir_program_free(p);
        return 1;
    }
    eir_program_free(p);
    int rc = 0;
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "eir: dot: cannot write '%s': %s\n", out, strerror(errno));
            rc = 1;
        }
    }
    if (!rc && svg) rc = render_svg(text, svg);
    if (!out && !svg) fputs(text, stdout);
    eir_free(text);
    return rc;
}
