/*
 * export/push.c - the pprof sent to a Pyroscope-compatible ingest endpoint (libcurl).
 *
 * Responsibility: POST BASE/ingest?name=NAME&from=S&until=S&format=pprof
 * (Pyroscope's HTTP ingest API: name, from and until in Unix seconds,
 * format pprof) with the gzip'd profile as the "profile" part of a
 * multipart/form-data body, as Pyroscope's own clients send it; a status
 * of 300 or more is a failure whose first line of body is the reason.
 * libcurl is optional at build time (TDR_HAVE_CURL): without it every call
 * says push is not built in. docs/export.md "Push".
 */
#include "export_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#ifdef TDR_HAVE_CURL
#include <curl/curl.h>
#endif

#include "tdrec/tdr_mem.h"

bool tdr_export_push_available(void)
{
#ifdef TDR_HAVE_CURL
	return true;
#else
	return false;
#endif
}

#ifdef TDR_HAVE_CURL
/* The first bytes of the answer, for the error line. */
struct answer {
	char text[160];
	size_t len;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct answer *a = ctx;
	size_t n = size * nmemb, room = sizeof(a->text) - 1 - a->len;
	size_t take = n < room ? n : room;

	memcpy(a->text + a->len, ptr, take);
	a->len += take;
	a->text[a->len] = '\0';
	return n;
}

static void first_line(char *s)
{
	s[strcspn(s, "\r\n")] = '\0';
}

int tdr_export_push(const char *url, const char *name, uint64_t from_s, uint64_t until_s,
		    const uint8_t *buf, size_t sz, char *err, size_t err_sz)
{
	struct answer ans = {0};
	curl_mime *mime = NULL;
	curl_mimepart *part;
	char *ename = NULL, *full = NULL;
	size_t len;
	long status = 0;
	CURLcode rc;
	CURL *c;
	int ret = -ENOMEM;

	if (err && err_sz)
		err[0] = '\0';
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	c = curl_easy_init();
	if (!c)
		goto out;
	ename = curl_easy_escape(c, name, 0);
	if (!ename)
		goto out;
	len = strlen(url) + strlen(ename) + 128;
	full = tdr_malloc(len);
	if (!full)
		goto out;
	/* The base address with or without its trailing slash. */
	snprintf(full, len, "%s%singest?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&format=pprof",
		 url, url[0] && url[strlen(url) - 1] == '/' ? "" : "/", ename, from_s, until_s);
	mime = curl_mime_init(c);
	part = mime ? curl_mime_addpart(mime) : NULL;
	if (!part || curl_mime_name(part, "profile") || curl_mime_filename(part, "profile.pprof") ||
	    curl_mime_type(part, "application/octet-stream") ||
	    curl_mime_data(part, (const char *)buf, sz))
		goto out;
	curl_easy_setopt(c, CURLOPT_URL, full);
	curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "tdrec/" TDREC_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	rc = curl_easy_perform(c);
	if (rc != CURLE_OK) {
		if (err)
			snprintf(err, err_sz, "%s", curl_easy_strerror(rc));
		ret = -EIO;
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	ret = 0;
	if (status >= 300) {
		first_line(ans.text);
		if (err)
			snprintf(err, err_sz, "the server answered HTTP %ld%s%s", status,
				 ans.text[0] ? ": " : "", ans.text);
		ret = -EIO;
	}
out:
	curl_mime_free(mime);
	curl_free(ename);
	free(full);
	if (c)
		curl_easy_cleanup(c);
	curl_global_cleanup();
	return ret;
}
#else
int tdr_export_push(const char *url, const char *name, uint64_t from_s, uint64_t until_s,
		    const uint8_t *buf, size_t sz, char *err, size_t err_sz)
{
	(void)url, (void)name, (void)from_s, (void)until_s, (void)buf, (void)sz;
	if (err && err_sz)
		snprintf(err, err_sz, "push is not built in (tdrec was built without libcurl)");
	return -ENOTSUP;
}
#endif
