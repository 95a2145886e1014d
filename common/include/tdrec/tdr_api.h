/*
 * common/include/tdrec/tdr_api.h - the export mark of the public API.
 *
 * Responsibility: every library is built with -fvisibility=hidden, so a
 * function is visible outside a shared object built from the libraries only
 * when its declaration in a public header (<module>/include/tdrec/) carries
 * TDR_API, as libbpf marks its API with LIBBPF_API. Functions shared between
 * the files of one module (declared in <module>/<module>_int.h) stay hidden
 * and are named tdr_<module>_... (docs/architecture.md).
 */
#ifndef TDREC_TDR_API_H
#define TDREC_TDR_API_H

#define TDR_API __attribute__((visibility("default")))

#endif /* TDREC_TDR_API_H */
