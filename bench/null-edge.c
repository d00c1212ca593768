/* null-edge.c: the floor under an edge in bench/propagation.sh (NULL_EDGES=1).
 *
 * A process that follows an update stream and answers launch queries as cheaply as libzmq allows: one thread, one
 * zmq_poll over a SUB socket (connected to a relay's or campaignd's updates endpoint) and a ROUTER socket (the client
 * endpoint adload probes). A change is read by looking for its "op", "id" and "priority" with memmem, not parsed; the
 * answer is the forced campaign (the newest forced one) or else the live one of the highest priority. No state on disk,
 * no acknowledgement, no snapshot: it starts from nothing and must be started before the first change. What the real
 * edge does beyond this (decode, index, save, acknowledge) is what the two runs' difference measures.
 *
 *   null-edge UPDATES_ENDPOINT READY_FILE
 *
 * The ready file ({"client": ENDPOINT, "http": ""}) is written once the first message came (a heartbeat: the
 * subscription is live). It answers launch.query ({"hasAd", "id"}) and edge.status ({"seq", "appliedAt"}, by the wall
 * clock to the millisecond, when it read the last change); anything else gets a JSON-RPC error. SIGTERM ends it.
 *
 * Build: gcc -O2 -Wall -o null-edge null-edge.c -lzmq
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define MAX_CAMPAIGNS 4096
#define MAX_PARTS 8

struct campaign { long id; long priority; int live; int forced; long forced_at; };
static struct campaign campaigns[MAX_CAMPAIGNS];
static int campaign_count;
static long seq, changes_read;
static char applied_at[40] = "";
static volatile sig_atomic_t stopping;

static void on_signal(int signal) { (void)signal; stopping = 1; }

/* The number after `"key":` in text[0..length), or `fallback`. */
static long number_after(const char *text, size_t length, const char *key, long fallback) {
    char pattern[40];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = memmem(text, length, pattern, strlen(pattern));
    return at ? strtol(at + strlen(pattern), NULL, 10) : fallback;
}

static struct campaign *campaign(long id) {
    for (int i = 0; i < campaign_count; i++) if (campaigns[i].id == id) return &campaigns[i];
    if (campaign_count == MAX_CAMPAIGNS) return NULL;
    campaigns[campaign_count] = (struct campaign){ .id = id };
    return &campaigns[campaign_count++];
}

/* The wall clock now, to the nearest millisecond (as the services' and adload's timestamps are), into applied_at. */
static void stamp_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long milliseconds = (long long)now.tv_sec * 1000 + (now.tv_nsec + 500000) / 1000000;
    time_t seconds = (time_t)(milliseconds / 1000);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    size_t n = strftime(applied_at, sizeof applied_at, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(applied_at + n, sizeof applied_at - n, ".%03lldZ", milliseconds % 1000);
}

/* One message of the update stream: [topic, JSON-RPC notification]. */
static void read_update(const char *body, size_t length, int *heard) {
    *heard = 1;
    if (!memmem(body, length, "\"campaign.changed\"", 18)) return;
    long change_seq = number_after(body, length, "seq", -1), id = number_after(body, length, "id", -1);
    const char *op = memmem(body, length, "\"op\":\"", 6);
    if (change_seq < 0 || id < 0 || !op) return;
    op += 6;
    struct campaign *c = campaign(id);
    if (!c) return;
    if (!strncmp(op, "created", 7) || !strncmp(op, "updated", 7)) {
        c->live = 1;
        c->priority = number_after(body, length, "priority", 0);
    } else if (!strncmp(op, "forced", 6)) {
        c->forced = 1;
        c->forced_at = change_seq;
    } else if (!strncmp(op, "unforced", 8)) {
        c->forced = 0;
    } else if (!strncmp(op, "paused", 6) || !strncmp(op, "expired", 7) || !strncmp(op, "deleted", 7)) {
        c->live = 0;
    } else if (!strncmp(op, "resumed", 7)) {
        c->live = 1;
    }
    seq = change_seq;
    changes_read++;
    stamp_now();
}

/* The answer to one request's payload, into reply (at most size bytes); its length. */
static int answer(const char *request, size_t length, char *reply, size_t size) {
    char id[64] = "null";
    const char *at = memmem(request, length, "\"id\":", 5);
    if (at) {
        at += 5;
        size_t n = 0;
        while (at + n < request + length && n < sizeof id - 1 && at[n] != ',' && at[n] != '}') n++;
        memcpy(id, at, n);
        id[n] = 0;
    }
    if (memmem(request, length, "\"launch.query\"", 14)) {
        struct campaign *best = NULL;
        for (int i = 0; i < campaign_count; i++) {
            struct campaign *c = &campaigns[i];
            if (!c->live) continue;
            if (!best || (c->forced && (!best->forced || c->forced_at > best->forced_at)) ||
                (!c->forced && !best->forced && c->priority > best->priority)) best = c;
        }
        if (best)
            return snprintf(reply, size, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"hasAd\":true,\"id\":%ld}}",
                            id, best->id);
        return snprintf(reply, size, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"hasAd\":false}}", id);
    }
    if (memmem(request, length, "\"edge.status\"", 13))
        return snprintf(reply, size, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"seq\":%ld,\"appliedAt\":\"%s\"}}",
                        id, seq, applied_at);
    return snprintf(reply, size,
                    "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,\"message\":\"method not found\"}}", id);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s UPDATES_ENDPOINT READY_FILE\n", argv[0]);
        return 2;
    }
    struct sigaction action = { .sa_handler = on_signal };
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    void *context = zmq_ctx_new();
    void *updates = zmq_socket(context, ZMQ_SUB), *client = zmq_socket(context, ZMQ_ROUTER);
    int zero = 0;
    zmq_setsockopt(updates, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(client, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(updates, ZMQ_SUBSCRIBE, "campaign", 8);
    zmq_setsockopt(updates, ZMQ_SUBSCRIBE, "heartbeat", 9);
    if (zmq_connect(updates, argv[1]) != 0 || zmq_bind(client, "tcp://127.0.0.1:0") != 0) {
        fprintf(stderr, "null-edge: %s\n", zmq_strerror(errno));
        return 1;
    }
    char endpoint[256];
    size_t endpoint_size = sizeof endpoint;
    zmq_getsockopt(client, ZMQ_LAST_ENDPOINT, endpoint, &endpoint_size);

    zmq_pollitem_t items[2] = { { updates, 0, ZMQ_POLLIN, 0 }, { client, 0, ZMQ_POLLIN, 0 } };
    int heard = 0, ready = 0;
    long served = 0;
    char reply[512];
    while (!stopping) {
        if (zmq_poll(items, 2, 1000) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (items[0].revents & ZMQ_POLLIN) {
            zmq_msg_t parts[MAX_PARTS];
            int n = 0, more = 1;
            while (more && n < MAX_PARTS) {
                zmq_msg_init(&parts[n]);
                if (zmq_msg_recv(&parts[n], updates, ZMQ_DONTWAIT) < 0) { zmq_msg_close(&parts[n]); break; }
                more = zmq_msg_more(&parts[n++]);
            }
            if (n == 2) read_update(zmq_msg_data(&parts[1]), zmq_msg_size(&parts[1]), &heard);
            for (int i = 0; i < n; i++) zmq_msg_close(&parts[i]);
            if (heard && !ready) {
                char temporary[4096];
                snprintf(temporary, sizeof temporary, "%s.tmp", argv[2]);
                FILE *file = fopen(temporary, "w");
                if (!file) { perror(temporary); return 1; }
                fprintf(file, "{\"client\": \"%s\", \"http\": \"\"}\n", endpoint);
                fclose(file);
                rename(temporary, argv[2]);
                ready = 1;
            }
        }
        if (items[1].revents & ZMQ_POLLIN) {
            /* Every request waiting: [routing id, (empty), payload], the envelope sent back as it came. */
            while (1) {
                zmq_msg_t parts[MAX_PARTS];
                int n = 0, more = 1;
                while (more && n < MAX_PARTS) {
                    zmq_msg_init(&parts[n]);
                    if (zmq_msg_recv(&parts[n], client, n == 0 ? ZMQ_DONTWAIT : 0) < 0) {
                        zmq_msg_close(&parts[n]);
                        break;
                    }
                    more = zmq_msg_more(&parts[n++]);
                }
                if (n == 0) break;
                if (n >= 2) {
                    int length = answer(zmq_msg_data(&parts[n - 1]), zmq_msg_size(&parts[n - 1]), reply, sizeof reply);
                    for (int i = 0; i < n - 1; i++) zmq_msg_send(&parts[i], client, ZMQ_SNDMORE);
                    zmq_send(client, reply, (size_t)length, 0);
                    served++;
                }
                for (int i = 0; i < n; i++) zmq_msg_close(&parts[i]);
            }
        }
    }
    fprintf(stderr, "null-edge: %ld changes read, %ld requests answered\n", changes_read, served);
    zmq_close(updates);
    zmq_close(client);
    zmq_ctx_term(context);
    return 0;
}
