/*
 * limit_load_wellkit.c - the reference loader limit_load.c (from the reference tools kept beside this repository), changed only to write WellKit's schema:
 * pins(id, name, lat, lon, geom) with a 60-byte SpatiaLite point blob, details(pin_id, uwi, 16
 * typed fields, source_x/y/crs, extra JSON of the unmapped columns, load_id) and the unique
 * identifier index on details(uwi). No validation, no SpatiaLite library, no triggers: the SQLite
 * work of a `wells load` of the gen_wells.py file, at C speed. The original comment follows.
 *
 * limit_load.c - approximate the physical limit of loading a well CSV into SQLite.
 *
 * Measures: wall time of (a) parsing the CSV alone with a minimal hand parser
 * (--parse-only), and (b) parse + insert into a normalised, indexed schema:
 *     pins(id INTEGER PRIMARY KEY, uwi, name, lat, lon)
 *     details(pin_id INTEGER PRIMARY KEY REFERENCES pins(id), ...16 other columns)
 *     pins_rtree  (SQLite R*Tree over lon/lat, 32-bit float boxes)
 * using prepared statements, one transaction, journal_mode=OFF (or WAL/DELETE)
 * and synchronous=OFF. Phase timings go to stderr, one JSON summary line to stdout.
 * --rtree packed writes the R*Tree shadow tables directly from Hilbert-sorted
 * points (the bulk-load idea GDAL >= 3.7 uses for GeoPackage), instead of
 * inserting through the rtree module one row at a time.
 *
 * Input: the 20-column CSV of gen_wells.py (header line skipped). Records with
 * a wrong field count are skipped and counted; empty/unparseable numbers -> NULL;
 * rows without valid lat/lon get no R*Tree entry.
 *
 * Build:  gcc -O2 -o limit_load limit_load.c -lsqlite3
 * Run:    ./limit_load --parse-only wells.csv
 *         ./limit_load wells.csv out.db                      # R*Tree row by row
 *         ./limit_load --rtree after wells.csv out.db        # R*Tree after the load
 *         ./limit_load --rtree hilbert wells.csv out.db      # R*Tree in Hilbert order
 *         ./limit_load --rtree packed wells.csv out.db       # R*Tree bulk-packed (shadow tables)
 *         ./limit_load --order hilbert wells.csv out.db      # rows (ids) in Hilbert order
 *         ./limit_load --rtree none --uwi-index --latlon-index --journal wal wells.csv out.db
 * The output DB is deleted first if it exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NCOL 20

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, sqlite3 *db) {
    fprintf(stderr, "limit_load: %s: %s\n", what, db ? sqlite3_errmsg(db) : strerror(errno));
    exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "limit_load: %s\n  in: %s\n", err, sql);
        exit(1);
    }
}

/* Parse one CSV record starting at *pp (RFC 4180: quoted fields, "" escapes,
 * CRLF or LF). Quoted fields are unescaped in place (the buffer is a private
 * writable mapping). Returns the number of fields seen (may exceed max: the
 * extra ones are dropped) and advances *pp past the record terminator. */
static int parse_record(char **pp, char *end, char **f, int *len, int max) {
    char *p = *pp;
    int n = 0;
    for (;;) {
        char *start, *w;
        if (p < end && *p == '"') {
            start = w = ++p;
            for (;;) {
                if (p >= end) break;                 /* unterminated: runs to EOF */
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') { *w++ = '"'; p += 2; continue; }
                    p++;                             /* closing quote */
                    break;
                }
                *w++ = *p++;
            }
            /* tolerate garbage after the closing quote up to the delimiter */
            while (p < end && *p != ',' && *p != '\n' && *p != '\r') p++;
        } else {
            start = p;
            while (p < end && *p != ',' && *p != '\n' && *p != '\r') p++;
            w = p;
        }
        if (n < max) { f[n] = start; len[n] = (int)(w - start); }
        n++;
        if (p < end && *p == ',') { p++; continue; }
        if (p < end && *p == '\r') p++;
        if (p < end && *p == '\n') p++;
        break;
    }
    *pp = p;
    return n;
}

/* strtod on a non-terminated field; returns 0 on empty/unparseable. */
static int parse_double(const char *s, int len, double *out) {
    char buf[64];
    if (len <= 0 || len >= (int)sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    if (e == buf || *e != 0 || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* Hilbert curve index of (x, y) on a 2^16 x 2^16 grid. */
static uint64_t hilbert(uint32_t x, uint32_t y) {
    uint64_t d = 0;
    for (uint32_t s = 1u << 15; s > 0; s >>= 1) {
        uint32_t rx = (x & s) > 0, ry = (y & s) > 0;
        d += (uint64_t)s * s * ((3 * rx) ^ ry);
        if (ry == 0) {
            if (rx == 1) { x = 0xFFFF - x; y = 0xFFFF - y; }
            uint32_t t = x; x = y; y = t;
        }
    }
    return d;
}

typedef struct { uint64_t key; int64_t id; double lat, lon; } HPoint;
static int hcmp(const void *a, const void *b) {
    uint64_t x = ((const HPoint *)a)->key, y = ((const HPoint *)b)->key;
    return x < y ? -1 : x > y;
}

/* ---- packed R*Tree bulk load -------------------------------------------------
 * Writes the shadow tables of an SQLite rtree(id, minlon, maxlon, minlat, maxlat)
 * directly: points sorted by Hilbert key are packed bottom-up into full nodes
 * (51 cells = SQLite's RTREE_MAXCELLS for 2-D with 4 KiB pages), node 1 is the
 * root and holds the tree depth. On-disk format as in SQLite's ext/rtree/rtree.c:
 * node blob = 2-byte depth, 2-byte cell count, cells of (int64 id, 4 x float32),
 * all big-endian; floats rounded outwards. Verify with SELECT rtreecheck('t'). */
#define RT_CAP 51
#define RT_NODE_BYTES (4 + 24 * RT_CAP)
typedef struct { int64_t id; float r[4]; } RtCell;   /* minx, maxx, miny, maxy */
static float rt_down(double d) { float f = (float)d; if (f > d) f = nextafterf(f, -INFINITY); return f; }
static float rt_up(double d) { float f = (float)d; if (f < d) f = nextafterf(f, INFINITY); return f; }
static void be16(uint8_t *d, unsigned v) { d[0] = v >> 8; d[1] = v; }
static void be64(uint8_t *d, uint64_t v) { for (int i = 0; i < 8; i++) d[i] = v >> (56 - 8 * i); }
static void befloat(uint8_t *d, float f) { uint32_t v; memcpy(&v, &f, 4); for (int i = 0; i < 4; i++) d[i] = v >> (24 - 8 * i); }

static void rtree_packed(sqlite3 *db, const char *name, const HPoint *pts, size_t n, int64_t max_id) {
    if (n == 0) return;
    /* levels[0] = items; levels[k] = cells describing nodes of level k-1 */
    RtCell *levels[16];
    size_t cnt[16];
    int nl = 0;
    levels[0] = malloc(n * sizeof(RtCell));
    for (size_t i = 0; i < n; i++) {
        RtCell *c = &levels[0][i];
        c->id = pts[i].id;
        c->r[0] = rt_down(pts[i].lon); c->r[1] = rt_up(pts[i].lon);
        c->r[2] = rt_down(pts[i].lat); c->r[3] = rt_up(pts[i].lat);
    }
    cnt[0] = n;
    while (cnt[nl] > 1 || nl == 0) {                 /* group RT_CAP cells per node */
        size_t m = (cnt[nl] + RT_CAP - 1) / RT_CAP;
        levels[nl + 1] = malloc(m * sizeof(RtCell));
        for (size_t j = 0; j < m; j++) {
            RtCell *p = &levels[nl + 1][j];
            size_t a = j * RT_CAP, b = a + RT_CAP < cnt[nl] ? a + RT_CAP : cnt[nl];
            p->r[0] = p->r[2] = INFINITY; p->r[1] = p->r[3] = -INFINITY;
            for (size_t k = a; k < b; k++) {
                const float *r = levels[nl][k].r;
                if (r[0] < p->r[0]) p->r[0] = r[0];
                if (r[1] > p->r[1]) p->r[1] = r[1];
                if (r[2] < p->r[2]) p->r[2] = r[2];
                if (r[3] > p->r[3]) p->r[3] = r[3];
            }
        }
        cnt[++nl] = m;
        if (m == 1) break;
    }
    /* nl = number of node levels; node level L (0 = leaves) has cnt[L+1] nodes,
     * described by levels[L+1]. Number nodes top-down: root = 1. */
    int64_t base[16];
    base[nl - 1] = 1;
    for (int L = nl - 2; L >= 0; L--) base[L] = base[L + 1] + (int64_t)cnt[L + 2];
    for (int L = 1; L < nl; L++)                     /* child ids of internal cells */
        for (size_t j = 0; j < cnt[L]; j++) levels[L][j].id = base[L - 1] + (int64_t)j;

    char sql[256];
    snprintf(sql, sizeof sql, "DELETE FROM \"%s_node\"", name);
    exec(db, sql);
    sqlite3_stmt *sn, *sp, *sr;
    snprintf(sql, sizeof sql, "INSERT INTO \"%s_node\" VALUES(?,?)", name);
    if (sqlite3_prepare_v2(db, sql, -1, &sn, NULL) != SQLITE_OK) die("prepare node", db);
    snprintf(sql, sizeof sql, "INSERT INTO \"%s_parent\" VALUES(?,?)", name);
    if (sqlite3_prepare_v2(db, sql, -1, &sp, NULL) != SQLITE_OK) die("prepare parent", db);
    snprintf(sql, sizeof sql, "INSERT INTO \"%s_rowid\" VALUES(?,?)", name);
    if (sqlite3_prepare_v2(db, sql, -1, &sr, NULL) != SQLITE_OK) die("prepare rowid", db);
    int64_t *leaf_of = calloc((size_t)max_id + 1, sizeof(int64_t));
    uint8_t blob[RT_NODE_BYTES];
    for (int L = nl - 1; L >= 0; L--) {              /* write nodes in nodeno order */
        for (size_t j = 0; j < cnt[L + 1]; j++) {
            int64_t nodeno = base[L] + (int64_t)j;
            size_t a = j * RT_CAP, b = a + RT_CAP < cnt[L] ? a + RT_CAP : cnt[L];
            memset(blob, 0, sizeof blob);
            be16(blob, L == nl - 1 ? (unsigned)(nl - 1) : 0);
            be16(blob + 2, (unsigned)(b - a));
            uint8_t *c = blob + 4;
            for (size_t k = a; k < b; k++, c += 24) {
                const RtCell *cell = &levels[L][k];
                be64(c, (uint64_t)cell->id);
                for (int d = 0; d < 4; d++) befloat(c + 8 + 4 * d, cell->r[d]);
                if (L == 0) leaf_of[cell->id] = nodeno;
            }
            sqlite3_bind_int64(sn, 1, nodeno);
            sqlite3_bind_blob(sn, 2, blob, RT_NODE_BYTES, SQLITE_STATIC);
            if (sqlite3_step(sn) != SQLITE_DONE) die("insert node", db);
            sqlite3_reset(sn);
            if (L < nl - 1) {
                sqlite3_bind_int64(sp, 1, nodeno);
                sqlite3_bind_int64(sp, 2, base[L + 1] + (int64_t)(j / RT_CAP));
                if (sqlite3_step(sp) != SQLITE_DONE) die("insert parent", db);
                sqlite3_reset(sp);
            }
        }
    }
    for (int64_t id = 1; id <= max_id; id++) {       /* rowid -> leaf, in id order */
        if (!leaf_of[id]) continue;
        sqlite3_bind_int64(sr, 1, id);
        sqlite3_bind_int64(sr, 2, leaf_of[id]);
        if (sqlite3_step(sr) != SQLITE_DONE) die("insert rowid", db);
        sqlite3_reset(sr);
    }
    sqlite3_finalize(sn); sqlite3_finalize(sp); sqlite3_finalize(sr);
    free(leaf_of);
    for (int L = 0; L <= nl; L++) free(levels[L]);
}

typedef struct { char *f[NCOL]; int len[NCOL]; uint64_t key; } Rec;

/* A SpatiaLite POINT blob (XY, SRID 4326, little-endian), as MakePoint(lon, lat, 4326) returns. */
static void spatialite_point(uint8_t *b, double x, double y) {
    int32_t srid = 4326, cls = 1;
    b[0] = 0x00; b[1] = 0x01;
    memcpy(b + 2, &srid, 4);
    memcpy(b + 6, &x, 8); memcpy(b + 14, &y, 8); memcpy(b + 22, &x, 8); memcpy(b + 30, &y, 8);
    b[38] = 0x7C;
    memcpy(b + 39, &cls, 4);
    memcpy(b + 43, &x, 8); memcpy(b + 51, &y, 8);
    b[59] = 0xFE;
}
static int rcmp(const void *a, const void *b) {
    uint64_t x = ((const Rec *)a)->key, y = ((const Rec *)b)->key;
    return x < y ? -1 : x > y;
}

static void usage(void) {
    fprintf(stderr,
            "usage: limit_load [--parse-only] [--journal off|wal|delete] [--sync off|normal|full]\n"
            "                  [--rtree inline|after|hilbert|packed|none] [--order file|hilbert]\n"
            "                  [--uwi-index] [--latlon-index] CSV [DB]\n");
    exit(2);
}

int main(int argc, char **argv) {
    int parse_only = 0, uwi_index = 0, latlon_index = 0, order_hilbert = 0;
    const char *journal = "off", *sync = "off", *rtree = "inline";
    const char *csv = NULL, *dbpath = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--parse-only")) parse_only = 1;
        else if (!strcmp(argv[i], "--uwi-index")) uwi_index = 1;
        else if (!strcmp(argv[i], "--latlon-index")) latlon_index = 1;
        else if (!strcmp(argv[i], "--order") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "hilbert")) order_hilbert = 1;
            else if (strcmp(argv[i], "file")) usage();
        }
        else if (!strcmp(argv[i], "--journal") && i + 1 < argc) journal = argv[++i];
        else if (!strcmp(argv[i], "--sync") && i + 1 < argc) sync = argv[++i];
        else if (!strcmp(argv[i], "--rtree") && i + 1 < argc) rtree = argv[++i];
        else if (argv[i][0] == '-') usage();
        else if (!csv) csv = argv[i];
        else if (!dbpath) dbpath = argv[i];
        else usage();
    }
    if (!csv || (!parse_only && !dbpath)) usage();
    int rt_inline = !strcmp(rtree, "inline"), rt_after = !strcmp(rtree, "after"),
        rt_hilbert = !strcmp(rtree, "hilbert"), rt_none = !strcmp(rtree, "none"),
        rt_packed = !strcmp(rtree, "packed");
    if (!(rt_inline || rt_after || rt_hilbert || rt_none || rt_packed)) usage();

    double t0 = now();
    int fd = open(csv, O_RDONLY);
    if (fd < 0) die(csv, NULL);
    struct stat st;
    if (fstat(fd, &st) < 0) die("fstat", NULL);
    size_t size = (size_t)st.st_size;
    char *buf = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (buf == MAP_FAILED) die("mmap", NULL);
    madvise(buf, size, MADV_SEQUENTIAL);
    char *p = buf, *end = buf + size;
    char *f[NCOL];
    int len[NCOL];
    parse_record(&p, end, f, len, NCOL);   /* header */

    long rows = 0, skipped = 0, no_geom = 0;
    double checksum = 0;

    if (parse_only) {
        while (p < end) {
            int n = parse_record(&p, end, f, len, NCOL);
            if (n == 1 && len[0] == 0) continue;       /* blank line */
            if (n != NCOL) { skipped++; continue; }
            double lat, lon, v;
            if (parse_double(f[2], len[2], &lat) && parse_double(f[3], len[3], &lon))
                checksum += lat + lon;
            else
                no_geom++;
            for (int k = 16; k <= 18; k++)
                if (parse_double(f[k], len[k], &v)) checksum += v;
            for (int k = 0; k < NCOL; k++) checksum += len[k];
            rows++;
        }
        double t1 = now();
        fprintf(stderr, "parse-only: %ld rows, %ld skipped, %ld without lat/lon, %.3f s\n",
                rows, skipped, no_geom, t1 - t0);
        printf("{\"tool\":\"limit_load\",\"mode\":\"parse-only\",\"rows\":%ld,\"skipped\":%ld,"
               "\"no_geom\":%ld,\"seconds\":%.4f,\"checksum\":%.3f}\n",
               rows, skipped, no_geom, t1 - t0, checksum);
        return 0;
    }

    unlink(dbpath);
    char side[4096];
    snprintf(side, sizeof side, "%s-wal", dbpath); unlink(side);
    snprintf(side, sizeof side, "%s-shm", dbpath); unlink(side);
    snprintf(side, sizeof side, "%s-journal", dbpath); unlink(side);
    sqlite3 *db;
    if (sqlite3_open(dbpath, &db) != SQLITE_OK) die("open", db);
    char sql[512];
    snprintf(sql, sizeof sql,
             "PRAGMA journal_mode=%s; PRAGMA synchronous=%s; PRAGMA cache_size=-131072;"
             "PRAGMA temp_store=MEMORY;", journal, sync);
    exec(db, sql);
    exec(db,
         "CREATE TABLE pins(id INTEGER PRIMARY KEY, name TEXT,"
         " lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90), lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180), geom BLOB);"
         "CREATE TABLE details(pin_id INTEGER PRIMARY KEY REFERENCES pins(id) ON DELETE CASCADE,"
         " uwi TEXT NOT NULL, operator TEXT, status TEXT, type TEXT, fluid TEXT, field TEXT, formation TEXT,"
         " county TEXT, state TEXT, licence TEXT, spud_date TEXT, completion_date TEXT, plug_date TEXT,"
         " total_depth REAL, ground_elevation REAL, kb_elevation REAL, source_x REAL, source_y REAL,"
         " source_crs TEXT, extra TEXT, load_id INTEGER);");
    if (!rt_none)
        exec(db, "CREATE VIRTUAL TABLE pins_rtree USING rtree(id, minlon, maxlon, minlat, maxlat);");

    sqlite3_stmt *ins_pin, *ins_det, *ins_rt = NULL;
    if (sqlite3_prepare_v3(db, "INSERT INTO pins(id,name,lat,lon,geom) VALUES(?,?,?,?,?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &ins_pin, NULL) != SQLITE_OK) die("prepare pins", db);
    if (sqlite3_prepare_v3(db, "INSERT INTO details VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &ins_det, NULL) != SQLITE_OK) die("prepare details", db);
    if (!rt_none &&
        sqlite3_prepare_v3(db, "INSERT INTO pins_rtree VALUES(?,?,?,?,?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &ins_rt, NULL) != SQLITE_OK) die("prepare rtree", db);

    HPoint *pts = NULL;
    size_t npts = 0, cap = 0;
    double t_parse_start = now();
    /* --order hilbert: parse everything first, then insert in Hilbert order of
     * (lon, lat) so that ids (and table pages) follow space; rows without
     * coordinates go last. */
    Rec *recs = NULL;
    size_t nrecs = 0, irec = 0;
    if (order_hilbert) {
        size_t rcap = 1 << 16;
        recs = malloc(rcap * sizeof *recs);
        while (p < end) {
            int n = parse_record(&p, end, f, len, NCOL);
            if (n == 1 && len[0] == 0) continue;
            if (n != NCOL) { skipped++; continue; }
            if (nrecs == rcap) { rcap *= 2; recs = realloc(recs, rcap * sizeof *recs); }
            if (!recs) die("realloc", NULL);
            Rec *r = &recs[nrecs++];
            memcpy(r->f, f, sizeof f);
            memcpy(r->len, len, sizeof len);
            double la, lo;
            r->key = (parse_double(f[2], len[2], &la) && parse_double(f[3], len[3], &lo) &&
                      la >= -90 && la <= 90 && lo >= -180 && lo <= 180)
                         ? hilbert((uint32_t)((lo + 180.0) / 360.0 * 65535.0),
                                   (uint32_t)((la + 90.0) / 180.0 * 65535.0))
                         : UINT64_MAX;
        }
        qsort(recs, nrecs, sizeof *recs, rcmp);
    }
    exec(db, "BEGIN");
    while (order_hilbert ? irec < nrecs : p < end) {
        if (order_hilbert) {
            memcpy(f, recs[irec].f, sizeof f);
            memcpy(len, recs[irec].len, sizeof len);
            irec++;
        } else {
            int n = parse_record(&p, end, f, len, NCOL);
            if (n == 1 && len[0] == 0) continue;
            if (n != NCOL) { skipped++; continue; }
        }
        int64_t id = ++rows;
        double lat, lon, v;
        int has_geom = parse_double(f[2], len[2], &lat) && parse_double(f[3], len[3], &lon) &&
                       lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
        sqlite3_bind_int64(ins_pin, 1, id);
        sqlite3_bind_text(ins_pin, 2, f[1], len[1], SQLITE_STATIC);
        uint8_t point[60];
        if (has_geom) {
            sqlite3_bind_double(ins_pin, 3, lat);
            sqlite3_bind_double(ins_pin, 4, lon);
            spatialite_point(point, lon, lat);
            sqlite3_bind_blob(ins_pin, 5, point, 60, SQLITE_STATIC);
        } else {
            sqlite3_bind_null(ins_pin, 3);
            sqlite3_bind_null(ins_pin, 4);
            sqlite3_bind_null(ins_pin, 5);
            no_geom++;
        }
        if (sqlite3_step(ins_pin) != SQLITE_DONE) die("insert pins", db);
        sqlite3_reset(ins_pin);

        sqlite3_bind_int64(ins_det, 1, id);
        /* details columns 2..22 <- csv columns (-1: no source column) */
        static const int from[] = {0, 5, 8, 11, 9, 6, 7, -1, 12, 4, 14, 15, -1, 16, 17, 18};
        for (int c = 0; c < 16; c++) {
            int k = from[c], col = c + 2;
            if (k < 0 || len[k] == 0) sqlite3_bind_null(ins_det, col);
            else if (k >= 16 && k <= 18 && parse_double(f[k], len[k], &v)) sqlite3_bind_double(ins_det, col, v);
            else sqlite3_bind_text(ins_det, col, f[k], len[k], SQLITE_STATIC);
        }
        for (int col = 18; col <= 20; col++) sqlite3_bind_null(ins_det, col);
        char extra[1024];
        int n = snprintf(extra, sizeof extra, "{\"mode\":\"%.*s\",\"licence_date\":\"%.*s\",\"confidential\":\"%.*s\"}",
                         len[10], f[10], len[13], f[13], len[19], f[19]);
        sqlite3_bind_text(ins_det, 21, extra, n, SQLITE_TRANSIENT);
        sqlite3_bind_int64(ins_det, 22, 1);
        if (sqlite3_step(ins_det) != SQLITE_DONE) die("insert details", db);
        sqlite3_reset(ins_det);

        if (has_geom && rt_inline) {
            sqlite3_bind_int64(ins_rt, 1, id);
            sqlite3_bind_double(ins_rt, 2, lon);
            sqlite3_bind_double(ins_rt, 3, lon);
            sqlite3_bind_double(ins_rt, 4, lat);
            sqlite3_bind_double(ins_rt, 5, lat);
            if (sqlite3_step(ins_rt) != SQLITE_DONE) die("insert rtree", db);
            sqlite3_reset(ins_rt);
        } else if (has_geom && (rt_after || rt_hilbert || rt_packed)) {
            if (npts == cap) {
                cap = cap ? cap * 2 : 1 << 16;
                pts = realloc(pts, cap * sizeof *pts);
                if (!pts) die("realloc", NULL);
            }
            pts[npts].id = id; pts[npts].lat = lat; pts[npts].lon = lon;
            pts[npts].key = (rt_hilbert || rt_packed) ? hilbert((uint32_t)((lon + 180.0) / 360.0 * 65535.0),
                                                 (uint32_t)((lat + 90.0) / 180.0 * 65535.0)) : 0;
            npts++;
        }
    }
    double t_rows = now();
    if (rt_after || rt_hilbert) {
        if (rt_hilbert) qsort(pts, npts, sizeof *pts, hcmp);
        for (size_t i = 0; i < npts; i++) {
            sqlite3_bind_int64(ins_rt, 1, pts[i].id);
            sqlite3_bind_double(ins_rt, 2, pts[i].lon);
            sqlite3_bind_double(ins_rt, 3, pts[i].lon);
            sqlite3_bind_double(ins_rt, 4, pts[i].lat);
            sqlite3_bind_double(ins_rt, 5, pts[i].lat);
            if (sqlite3_step(ins_rt) != SQLITE_DONE) die("insert rtree", db);
            sqlite3_reset(ins_rt);
        }
    }
    if (rt_packed) {
        qsort(pts, npts, sizeof *pts, hcmp);
        rtree_packed(db, "pins_rtree", pts, npts, rows);
    }
    double t_rtree = now();
    if (uwi_index) exec(db, "CREATE UNIQUE INDEX details_uwi ON details(uwi)");
    if (latlon_index) exec(db, "CREATE INDEX pins_lat_lon ON pins(lat, lon)");
    double t_index = now();
    exec(db, "COMMIT");
    sqlite3_finalize(ins_pin);
    sqlite3_finalize(ins_det);
    if (ins_rt) sqlite3_finalize(ins_rt);
    if (!strcmp(journal, "wal")) exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
    if (sqlite3_close(db) != SQLITE_OK) die("close", db);
    double t_end = now();
    struct stat dst;
    stat(dbpath, &dst);
    fprintf(stderr,
            "load: %ld rows (%ld skipped, %ld without geometry) rows+inline %.3f s, "
            "rtree-after %.3f s, indexes %.3f s, commit+close %.3f s, total %.3f s, db %lld bytes\n",
            rows, skipped, no_geom, t_rows - t_parse_start, t_rtree - t_rows, t_index - t_rtree,
            t_end - t_index, t_end - t0, (long long)dst.st_size);
    printf("{\"tool\":\"limit_load\",\"mode\":\"load\",\"journal\":\"%s\",\"rtree\":\"%s\","
           "\"order\":\"%s\",\"latlon_index\":%d,\"uwi_index\":%d,\"rows\":%ld,\"skipped\":%ld,\"no_geom\":%ld,\"seconds\":%.4f,"
           "\"rows_phase\":%.4f,\"rtree_phase\":%.4f,\"index_phase\":%.4f,\"commit_phase\":%.4f,"
           "\"db_bytes\":%lld}\n",
           journal, rtree, order_hilbert ? "hilbert" : "file", latlon_index, uwi_index, rows, skipped, no_geom, t_end - t0, t_rows - t_parse_start,
           t_rtree - t_rows, t_index - t_rtree, t_end - t_index, (long long)dst.st_size);
    munmap(buf, size);
    free(pts);
    free(recs);
    return 0;
}
