/*
 * export/push.c - the pprof sent to a Pyroscope-compatible ingest endpoint (libcurl).
 *
 * Responsibility: POST BASE/ingest?name=NAME&from=S&until=S&format=pprof
 * (Pyroscope's HTTP ingest API: name, from and until in Unix seconds,
 * format pprof) with the gzip'd profile as the "profile" part of a
 * multipart/form-data body, as Pyroscope's own clients send it; a status
 * of 300 or more is a failure whose first line of body is the reason.
 * libcurl is optional at build time (TDR_HAVE_CURL): without it every call
 * says push is not built in. With it, libcurl is loaded (dlopen) by the
 * first push, not linked: linked, it and the TLS, Kerberos, LDAP and SSH
 * libraries behind it made every tdrec command start about 6 ms slower.
 * docs/export.md "Push".
 */
#include "export_int.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#ifdef TDR_HAVE_CURL
#include <curl/curl.h>
#include <dlfcn.h>
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
/* The library's ABI name since libcurl 7.16 (Debian's libcurl4, what
 * libcurl4-openssl-dev builds against). */
#define CURL_SONAME "libcurl.so.4"

/* The libcurl functions a push calls, typed from curl.h. */
static struct curl_api {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_global_cleanup) *global_cleanup;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_escape) *easy_escape;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_free) *free;
	__typeof__(curl_mime_init) *mime_init;
	__typeof__(curl_mime_addpart) *mime_addpart;
	__typeof__(curl_mime_name) *mime_name;
	__typeof__(curl_mime_filename) *mime_filename;
	__typeof__(curl_mime_type) *mime_type;
	__typeof__(curl_mime_data) *mime_data;
	__typeof__(curl_mime_free) *mime_free;
} curl;

/* Load libcurl once (the process keeps it). Returns 0, or -ENOTSUP with
 * the reason in err. */
static int curl_load(char *err, size_t err_sz)
{
	static const struct {
		const char *name;
		size_t at;
	} syms[] = {
#define SYM(field, name) { #name, offsetof(struct curl_api, field) }
		SYM(global_init, curl_global_init),	  SYM(global_cleanup, curl_global_cleanup),
		SYM(easy_init, curl_easy_init),		  SYM(easy_escape, curl_easy_escape),
		SYM(easy_setopt, curl_easy_setopt),	  SYM(easy_perform, curl_easy_perform),
		SYM(easy_getinfo, curl_easy_getinfo),	  SYM(easy_strerror, curl_easy_strerror),
		SYM(easy_cleanup, curl_easy_cleanup),	  SYM(free, curl_free),
		SYM(mime_init, curl_mime_init),		  SYM(mime_addpart, curl_mime_addpart),
		SYM(mime_name, curl_mime_name),		  SYM(mime_filename, curl_mime_filename),
		SYM(mime_type, curl_mime_type),		  SYM(mime_data, curl_mime_data),
		SYM(mime_free, curl_mime_free),
#undef SYM
	};
	static void *lib;

	if (lib)
		return 0;
	lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		if (err && err_sz)
			snprintf(err, err_sz, "push needs %s (Debian package libcurl4): %s",
				 CURL_SONAME, dlerror());
		return -ENOTSUP;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(lib, syms[i].name);

		if (!f) {
			if (err && err_sz)
				snprintf(err, err_sz, "%s has no %s: libcurl 7.56 or newer is needed",
					 CURL_SONAME, syms[i].name);
			dlclose(lib);
			lib = NULL;
			return -ENOTSUP;
		}
		memcpy((char *)&curl + syms[i].at, &f, sizeof(f));
	}
	return 0;
}

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
	ret = curl_load(err, err_sz);
	if (ret)
		return ret;
	ret = -ENOMEM;
	if (curl.global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	c = curl.easy_init();
	if (!c)
		goto out;
	ename = curl.easy_escape(c, name, 0);
	if (!ename)
		goto out;
	len = strlen(url) + strlen(ename) + 128;
	full = tdr_malloc(len);
	if (!full)
		goto out;
	/* The base address with or without its trailing slash. */
	snprintf(full, len, "%s%singest?name=%s&from=%" PRIu64 "&until=%" PRIu64 "&format=pprof",
		 url, url[0] && url[strlen(url) - 1] == '/' ? "" : "/", ename, from_s, until_s);
	mime = curl.mime_init(c);
	part = mime ? curl.mime_addpart(mime) : NULL;
	if (!part || curl.mime_name(part, "profile") || curl.mime_filename(part, "profile.pprof") ||
	    curl.mime_type(part, "application/octet-stream") ||
	    curl.mime_data(part, (const char *)buf, sz))
		goto out;
	curl.easy_setopt(c, CURLOPT_URL, full);
	curl.easy_setopt(c, CURLOPT_MIMEPOST, mime);
	curl.easy_setopt(c, CURLOPT_USERAGENT, "tdrec/" TDREC_VERSION);
	curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl.easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 30L);
	curl.easy_setopt(c, CURLOPT_TIMEOUT, 300L);
	rc = curl.easy_perform(c);
	if (rc != CURLE_OK) {
		if (err)
			snprintf(err, err_sz, "%s", curl.easy_strerror(rc));
		ret = -EIO;
		goto out;
	}
	curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	ret = 0;
	if (status >= 300) {
		first_line(ans.text);
		if (err)
			snprintf(err, err_sz, "the server answered HTTP %ld%s%s", status,
				 ans.text[0] ? ": " : "", ans.text);
		ret = -EIO;
	}
out:
	curl.mime_free(mime);
	curl.free(ename);
	free(full);
	if (c)
		curl.easy_cleanup(c);
	curl.global_cleanup();
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
