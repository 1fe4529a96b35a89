#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/* OpenSSL's configuration calls are macros over SSL_ctrl, which Swift cannot import: these
   wrappers are the whole TLS policy of the tool's HTTP client, in one place. */

/* A client context: TLS 1.2 or later, peer certificate verified against `bundle` (a PEM file)
   and `directory` (hashed certificates; either may be NULL), a peer closing without
   close_notify read as a plain end of stream, no renegotiation, partial writes allowed
   (the socket is non-blocking). Returns NULL when the context cannot be made. */
static inline SSL_CTX *bgeo_tls_client_context(const char *bundle, const char *directory) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) return NULL;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (bundle != NULL || directory != NULL) {
        if (SSL_CTX_load_verify_locations(ctx, bundle, directory) != 1) {
            ERR_clear_error();
            SSL_CTX_set_default_verify_paths(ctx);
        }
    } else {
        SSL_CTX_set_default_verify_paths(ctx);
    }
    ERR_clear_error();
    return ctx;
}

/* The peer this connection must prove to be: an IP literal is matched against the
   certificate's IP subjectAltNames (and gets no SNI, RFC 6066); a host name gets SNI and
   is matched against its DNS names, no partial wildcards. 1 on success. */
static inline int bgeo_tls_expect_peer(SSL *ssl, const char *host, int isIPAddress) {
    if (isIPAddress) {
        return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1;
    }
    if (SSL_set_tlsext_host_name(ssl, host) != 1) return 0;
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return SSL_set1_host(ssl, host) == 1;
}
#endif
