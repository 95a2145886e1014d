/*
 * tests/recorder/progs/forkexec.c - fork, exec another program, wait.
 *
 * forkexec PROGRAM [ARGS...]: the child execs PROGRAM; the parent waits and
 * exits with the child's exit code.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status = 0;
	pid_t pid;

	if (argc < 2)
		return 2;
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror("execv");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 4;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}
