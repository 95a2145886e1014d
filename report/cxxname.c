/*
 * report/cxxname.c - shorter C++ names for the text tables.
 *
 * Responsibility: a demangled C++ name can be hundreds of columns
 * ("void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<
 * int, ...> >, long, ...>(...)"); cut in the middle to fit a column, two such
 * names look alike. tdr_report_cxx_shorten drops, level by level, what tells
 * least: the return type of a template function, then the parameter lists
 * ("(...)"), then template arguments nested in template arguments, then all
 * but the first ("Acc<double, ...>::step(...)"), then all of them
 * ("std::__introsort_loop<...>(...)"). Only the text
 * tables use it, and only for a name that does not fit; rows are keyed, and
 * JSON and CSV written, with the full name.
 * Names that are not C++ (no brackets) come out unchanged, and so does a
 * name whose brackets do not balance.
 */
#include "report_int.h"

#include <stdbool.h>
#include <string.h>

/* Length of the operator after "operator" at s ("<<=", "()", ...), 0 for
 * none: its brackets are not brackets. */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {
	    "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "->", "()", "[]", "<", ">"};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(s, ops[i], strlen(ops[i])))
			return strlen(ops[i]);
	return 0;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* At s[i], the word "operator" (not inside another identifier)? */
static bool at_operator(const char *s, size_t i)
{
	return !strncmp(s + i, "operator", 8) && (i == 0 || !ident_char(s[i - 1])) &&
	       !ident_char(s[i + 8]);
}

/* Index just past the bracket group opening at s[i] ('<', '(' or '{'),
 * 0 when it does not close. */
static size_t group_end(const char *s, size_t i)
{
	size_t depth = 0;

	for (; s[i]; i++) {
		if (at_operator(s, i)) {
			i += 8 + operator_len(s + i + 8) - 1;
			continue;
		}
		if (s[i] == '<' || s[i] == '(' || s[i] == '{')
			depth++;
		else if ((s[i] == '>' || s[i] == ')' || s[i] == '}') && --depth == 0)
			return i + 1;
	}
	return 0;
}

/* Where the name proper starts: past a return type, the last space outside
 * brackets before the first top-level '(' (not the one of "operator new"). */
static size_t name_start(const char *s)
{
	size_t start = 0;

	for (size_t i = 0; s[i] && s[i] != '('; i++) {
		if (at_operator(s, i))
			return start;
		if (s[i] == '<' || s[i] == '{') {
			size_t e = group_end(s, i);

			if (!e)
				return 0;
			i = e - 1;
		} else if (s[i] == ' ') {
			start = i + 1;
		}
	}
	return start;
}

void tdr_report_cxx_shorten(const char *name, unsigned level, char *buf, size_t sz)
{
	size_t i = level >= 1 ? name_start(name) : 0, n = 0, angle = 0, end, top_end = 0;

	if (!sz)
		return;
	if (level == 0 || !strpbrk(name, "<(")) {
		snprintf(buf, sz, "%s", name);
		return;
	}
	for (; name[i] && n + 8 < sz; i++) {
		char c = name[i];

		if (at_operator(name, i)) {
			size_t len = 8 + operator_len(name + i + 8);

			if (n + len + 8 >= sz)
				break;
			memcpy(buf + n, name + i, len);
			n += len;
			i += len - 1;
			continue;
		}
		/* Parameters at level 2 (not "(anonymous namespace)"), template
		 * arguments nested in others at 3, all but the first at 4, all
		 * at 5. */
		if (c == ',' && level == 4 && angle == 1 && top_end) {
			memcpy(buf + n, ", ...>", 6);
			n += 6;
			i = top_end - 1;
			angle = 0;
			continue;
		}
		if (c == '<' && angle == 0 && !(top_end = group_end(name, i))) {
			snprintf(buf, sz, "%s", name);
			return;
		}
		if ((c == '(' && level >= 2 && angle == 0 &&
		     strncmp(name + i, "(anonymous namespace)", 21) && name[i + 1] != ')') ||
		    (c == '<' && level >= (angle ? 3u : 5u))) {
			end = group_end(name, i);
			if (!end) {
				snprintf(buf, sz, "%s", name);
				return;
			}
			memcpy(buf + n, c == '(' ? "(...)" : "<...>", 5);
			n += 5;
			i = end - 1;
			continue;
		}
		if (c == '<')
			angle++;
		else if (c == '>' && angle)
			angle--;
		buf[n++] = c;
	}
	buf[n] = '\0';
}
