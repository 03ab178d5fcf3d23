/* main.c — the `eir` command line: info and print for now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"

static const char USAGE[] =
    "usage: eir <command> [options] MODEL.pt2\n"
    "\n"
    "Read a torch.export program (.pt2 written by torch.export.save) without Python.\n"
    "\n"
    "commands:\n"
    "  info [--json] MODEL.pt2     summary: versions, user inputs/outputs with symbolic\n"
    "                              dims and ranges, stored state, op histogram, dialect,\n"
    "                              control flow, custom ops, runtime assertions\n"
    "  print [FORM] MODEL.pt2      print the program exactly as torch 2.13 does:\n"
    "      (default)               like print(ep.graph)\n"
    "      --code                  like print(ep.graph_module.code)\n"
    "      --program               like print(ep), nested graphs included\n"
    "\n"
    "options:\n"
    "  -h, --help                  show this help\n"
    "  --version                   show the eir version\n"
    "\n"
    "exit status: 0 on success, 1 when the model cannot be read (the message names\n"
    "the record, JSON path or node at fault), 2 on a usage error.\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "eir: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'eir --help'.\n");
    return 2;
}

static int load(const char *path, eir_program **p) {
    if (eir_program_load(path, p) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(*p));
        eir_program_free(*p);
        *p = NULL;
        return 1;
    }
    return 0;
}

static int emit(eir_program *p, eir_status st, char *text) {
    if (st != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(p));
        return 1;
    }
    fputs(text, stdout);
    eir_free(text);
    if (fflush(stdout) != 0) {
        perror("eir: writing output");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(USAGE, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("eir %s\n", EIR_VERSION);
        return 0;
    }
    const char *path = NULL;
    bool json = false;
    eir_print_form form = EIR_PRINT_GRAPH;
    bool is_info = !strcmp(cmd, "info"), is_print = !strcmp(cmd, "print");
    if (!is_info && !is_print) return usage_error("unknown command '%s'", cmd);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(USAGE, stdout); return 0; }
        if (is_info && !strcmp(a, "--json")) json = true;
        else if (is_print && !strcmp(a, "--code")) form = EIR_PRINT_CODE;
        else if (is_print && !strcmp(a, "--program")) form = EIR_PRINT_PROGRAM;
        else if (is_print && !strcmp(a, "--graph")) form = EIR_PRINT_GRAPH;
        else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
        else if (path) return usage_error("more than one model given ('%s')", a);
        else path = a;
    }
    if (!path) return usage_error("%s: no model given", cmd);
    eir_program *p;
    if (load(path, &p)) return 1;
    char *text = NULL;
    eir_status st = is_info ? eir_program_info(p, json, &text) : eir_program_print(p, form, &text);
    int rc = emit(p, st, text);
    eir_program_free(p);
    return rc;
}
