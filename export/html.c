/*
 * export/html.c - placeholder until the html page lands (docs/export.md).
 */
#include "export_int.h"

#include <errno.h>

int tdr_export_html(const struct tdr_profile *p, FILE *out)
{
	(void)p, (void)out;
	return -ENOTSUP;
}
