/* Volcano's ssh plugin: one RSA 2048 key pair per job (or the user's, from --ssh-private-key), laid out as
 * Volcano's Secret is: id_rsa, id_rsa.pub, authorized_keys and config, all 0600, in <job dir>/ssh. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "scheduler/controller/job_plugins/internal.h"

#define SSH_SUBDIR "ssh"
#define SSH_PRIVATE_KEY "id_rsa"
#define SSH_PUBLIC_KEY "id_rsa.pub"
#define SSH_AUTHORIZED_KEYS "authorized_keys"
#define SSH_CONFIG "config"
#define SSH_FILE_MODE 0600 /* the Secret volume's defaultMode */
#define SSH_KEY_BITS 2048
#define SSH_KEY_MAX (64 * 1024)

static int crypto_fail(const char *what, char *why, size_t why_len)
{
    char detail[256];
    ERR_error_string_n(ERR_get_error(), detail, sizeof detail);
    ERR_clear_error();
    snprintf(why, why_len, "ssh plugin: %s: %s", what, detail);
    return -1;
}

/* SSH wire encoding (RFC 4251): a uint32 length, then the bytes. */
static void put_string(struct sbuf *b, const unsigned char *data, size_t len)
{
    unsigned char n[4] = {(unsigned char)(len >> 24), (unsigned char)(len >> 16), (unsigned char)(len >> 8),
                          (unsigned char)len};
    sbuf_append(b, n, 4);
    sbuf_append(b, data, len);
}

/* An mpint: big-endian magnitude, a leading zero byte when the top bit is set. */
static int put_mpint(struct sbuf *b, const BIGNUM *bn)
{
    int len = BN_num_bytes(bn);
    unsigned char *buf = malloc((size_t)len + 1);
    if (!buf)
        return -1;
    buf[0] = 0;
    BN_bn2bin(bn, buf + 1);
    bool pad = len > 0 && (buf[1] & 0x80);
    put_string(b, pad ? buf : buf + 1, (size_t)len + (pad ? 1 : 0));
    free(buf);
    return 0;
}

/* "ssh-rsa <base64 of string "ssh-rsa", mpint e, mpint n>\n", as Go's ssh.MarshalAuthorizedKey writes it. */
static int public_line_of_key(EVP_PKEY *pkey, char **line, char *why, size_t why_len)
{
    BIGNUM *n = NULL, *e = NULL;
    if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
        !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e)) {
        BN_free(n);
        return crypto_fail("reading the RSA public key", why, why_len);
    }
    struct sbuf blob = {0};
    put_string(&blob, (const unsigned char *)"ssh-rsa", 7);
    int rc = put_mpint(&blob, e) == 0 && put_mpint(&blob, n) == 0 && !blob.failed ? 0 : -1;
    BN_free(n);
    BN_free(e);
    char *text = NULL;
    if (rc == 0) {
        size_t b64_len = 4 * ((blob.len + 2) / 3);
        text = malloc(8 + b64_len + 2);
        if (text) {
            memcpy(text, "ssh-rsa ", 8);
            EVP_EncodeBlock((unsigned char *)text + 8, (const unsigned char *)blob.data, (int)blob.len);
            strcpy(text + 8 + b64_len, "\n");
        }
    }
    sbuf_free(&blob);
    if (!text) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    *line = text;
    return 0;
}

/* A new key pair: the private key as PKCS#1 PEM ("RSA PRIVATE KEY", what Volcano writes). */
static int generate_key_pair(char **private_pem, char **public_line, char *why, size_t why_len)
{
    EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)SSH_KEY_BITS);
    if (!pkey)
        return crypto_fail("generating an RSA key", why, why_len);
    OSSL_ENCODER_CTX *ectx = OSSL_ENCODER_CTX_new_for_pkey(pkey, OSSL_KEYMGMT_SELECT_KEYPAIR, "PEM", "type-specific",
                                                           NULL);
    unsigned char *data = NULL;
    size_t len = 0;
    int rc = -1;
    if (!ectx || OSSL_ENCODER_CTX_get_num_encoders(ectx) == 0 || !OSSL_ENCODER_to_data(ectx, &data, &len)) {
        crypto_fail("encoding the private key", why, why_len);
    } else if (!(*private_pem = strndup((const char *)data, len))) {
        snprintf(why, why_len, "out of memory");
    } else if (public_line_of_key(pkey, public_line, why, why_len) != 0) {
        free(*private_pem);
        *private_pem = NULL;
    } else {
        rc = 0;
    }
    OPENSSL_free(data);
    OSSL_ENCODER_CTX_free(ectx);
    EVP_PKEY_free(pkey);
    return rc;
}

/* The public line of a PEM private key kept from an earlier prepare; -1 when it does not parse. */
static int public_line_of_pem(const char *pem, size_t len, char **public_line, char *why, size_t why_len)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    if (!pkey || !EVP_PKEY_is_a(pkey, "RSA")) {
        EVP_PKEY_free(pkey);
        return crypto_fail("reading the kept private key", why, why_len);
    }
    int rc = public_line_of_key(pkey, public_line, why, why_len);
    EVP_PKEY_free(pkey);
    return rc;
}

/* StrictHostKeyChecking off, then "Host <pod>" / "  HostName <pod>.<job>" for every replica. An mpi
 * worker whose sshd listens on a port other than 22 (one machine: a port of its own) is matched by both
 * its names and gets "  Port <port>", so `ssh <pod>.<job>` and mpirun reach it. */
static char *ssh_config_text(const struct job *job, const struct plugin_config *cfg)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n");
    char pod[256];
    for (int t = 0; t < job->ntasks; t++) {
        for (int i = 0; i < job->tasks[t].replicas; i++) {
            job_pod_name(job, t, i, pod, (int)sizeof pod);
            int32_t port = plugin_mpi_ssh_port(job, cfg, t, i, plugin_first_port(job, cfg, PLUGIN_MPI));
            if (port && port != 22)
                sbuf_printf(&b, "Host %s %s.%s\n  HostName %s.%s\n  Port %d\n", pod, pod, job->name, pod, job->name,
                            (int)port);
            else
                sbuf_printf(&b, "Host %s\n  HostName %s.%s\n", pod, pod, job->name);
        }
    }
    if (b.failed) {
        sbuf_free(&b);
        return NULL;
    }
    return sbuf_take(&b);
}

/* The job's key pair: the user's, the one an earlier prepare wrote (kept across restarts), or a new one
 * written now. id_rsa is written first, so a crash leaves a key the next prepare derives the rest from. */
static int ensure_key_pair(const struct plugin_config *cfg, const char *dir, char **public_line, char *why,
                           size_t why_len)
{
    if (cfg->ssh.private_key && *cfg->ssh.private_key) {
        if (!(*public_line = strdup(cfg->ssh.public_key ? cfg->ssh.public_key : ""))) {
            snprintf(why, why_len, "out of memory");
            return -1;
        }
        return plugin_write_file(dir, SSH_PRIVATE_KEY, cfg->ssh.private_key, strlen(cfg->ssh.private_key),
                                 SSH_FILE_MODE, why, why_len);
    }
    char path[1024], *kept = NULL;
    size_t kept_len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, SSH_PRIVATE_KEY);
    if (read_file(path, SSH_KEY_MAX, &kept, &kept_len) == 0) {
        char ignored[256];
        int rc = public_line_of_pem(kept, kept_len, public_line, ignored, sizeof ignored);
        free(kept);
        if (rc == 0)
            return 0; /* an unreadable key is replaced below */
    }
    char *private_pem = NULL;
    if (generate_key_pair(&private_pem, public_line, why, why_len) != 0)
        return -1;
    int rc = plugin_write_file(dir, SSH_PRIVATE_KEY, private_pem, strlen(private_pem), SSH_FILE_MODE, why, why_len);
    free(private_pem);
    if (rc != 0) {
        free(*public_line);
        *public_line = NULL;
    }
    return rc;
}

/* The files are bound read-only over the task's ~/.ssh. When every task runs as one user (the token's,
 * under --auth) they are that user's to read (0600), in a directory that stays the server's (0711:
 * passed through, never listed or written), so the task can neither replace them nor read another
 * job's. Tasks of several users, or of the server's, leave them the server's (0700). */
static int give_to_tasks_user(const struct job *job, const char *dir, char *why, size_t why_len)
{
    int32_t uid = job->ntasks > 0 ? job->tasks[0].run_as_uid : -1,
            gid = job->ntasks > 0 ? job->tasks[0].run_as_gid : -1;
    for (int t = 1; t < job->ntasks; t++)
        if (job->tasks[t].run_as_uid != uid || job->tasks[t].run_as_gid != gid)
            uid = gid = -1;
    if (uid <= 0 || geteuid() != 0)
        return 0;
    static const char *const files[] = {SSH_PRIVATE_KEY, SSH_PUBLIC_KEY, SSH_AUTHORIZED_KEYS, SSH_CONFIG};
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = fd < 0 ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < sizeof files / sizeof files[0]; i++) /* only the server writes dir */
        rc = fchownat(fd, files[i], (uid_t)uid, (gid_t)gid, AT_SYMLINK_NOFOLLOW);
    if (rc == 0)
        rc = fchmod(fd, 0711);
    if (rc != 0)
        snprintf(why, why_len, "cannot give the job's ssh keys in %s to uid %d: %s", dir, (int)uid, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

static int ssh_prepare(const struct job *job, const struct plugin_config *cfg, const char *job_dir, char *why,
                       size_t why_len)
{
    char dir[1024];
    if (snprintf(dir, sizeof dir, "%s/%s", job_dir, SSH_SUBDIR) >= (int)sizeof dir) {
        snprintf(why, why_len, "job directory path too long: %s", job_dir);
        return -1;
    }
    if (mkdir_p(dir, 0700) != 0 || chmod(dir, 0700) != 0) {
        snprintf(why, why_len, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    char *public_line = NULL;
    if (ensure_key_pair(cfg, dir, &public_line, why, why_len) != 0)
        return -1;
    char *config = ssh_config_text(job, cfg);
    size_t public_len = strlen(public_line);
    int rc = -1;
    if (!config)
        snprintf(why, why_len, "out of memory");
    else if (plugin_write_file(dir, SSH_PUBLIC_KEY, public_line, public_len, SSH_FILE_MODE, why, why_len) == 0 &&
             plugin_write_file(dir, SSH_AUTHORIZED_KEYS, public_line, public_len, SSH_FILE_MODE, why, why_len) == 0 &&
             plugin_write_file(dir, SSH_CONFIG, config, strlen(config), SSH_FILE_MODE, why, why_len) == 0)
        rc = give_to_tasks_user(job, dir, why, why_len);
    free(config);
    free(public_line);
    return rc;
}

static int ssh_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)job, (void)cfg, (void)task, (void)index, (void)first_port;
    if (snprintf(out->ssh_dir, sizeof out->ssh_dir, "%s/%s", job_dir, SSH_SUBDIR) >= (int)sizeof out->ssh_dir) {
        snprintf(why, why_len, "job directory path too long for the ssh directory: %s", job_dir);
        return -1;
    }
    return 0;
}

const struct plugin_def plugin_ssh = {
    .id = PLUGIN_SSH,
    .prepare = ssh_prepare,
    .attempt = ssh_attempt,
};
