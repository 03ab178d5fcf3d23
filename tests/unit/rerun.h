/* rerun.h — run this test binary again in a child process with one more
 * environment variable set (for example EIR_GEMM=openblas, which a library
 * reads once per process), and report whether the child passed. The child
 * sees `flag`=1 so that main() can tell which run it is. */
#ifndef EIR_TEST_RERUN_H
#define EIR_TEST_RERUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline bool rerun_with_env(char **argv, const char *name, const char *value, const char *flag) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        setenv(name, value, 1);
        setenv(flag, "1", 1);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: the run with %s=%s failed\n", argv[0], name, value);
        return false;
    }
    return true;
}

#endif
