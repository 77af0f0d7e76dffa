/*
 * bbox_query.c - WellKit's C reference for bounding-box fetches: the same SQL on the same store
 * and the same viewports as `wells-bench bbox`, from C, with no layer between the program and
 * SQLite. `wells-bench bbox --reference-query BINARY` and the notebooks run it.
 *
 * For each line "label minlon minlat maxlon maxlat" of VIEWPORTS it binds ?1..?4, steps every row
 * and reads every column (as a caller that uses the rows would), timing each query with
 * CLOCK_MONOTONIC. One untimed warm-up pass, then --passes timed passes. Per label it prints one
 * JSON line: the median over passes of the per-pass p50, p99 and mean, in microseconds, and the
 * rows per query.
 *
 * Build:  gcc -O2 -o bbox_query Benchmarks/Reference/bbox_query.c -lsqlite3
 * Run:    bbox_query [--passes N] [--name NAME] STORE VIEWPORTS SQL
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char label[32]; double box[4]; double micros; long rows; } Viewport;

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile q (0-1) of n sorted values. */
static double percentile(const double *sorted, int n, double q) {
    int k = (int)(q * n + 0.999999) - 1;
    return sorted[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static double median(double *values, int n) {
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int main(int argc, char **argv) {
    int passes = 3;
    const char *name = "bbox_query", *positional[3] = {0};
    int given = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--passes") && i + 1 < argc) passes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
        else if (given < 3) positional[given++] = argv[i];
        else given = 4;
    }
    if (given != 3 || passes < 1 || passes > 100) {
        fprintf(stderr, "usage: bbox_query [--passes 1-100] [--name NAME] STORE VIEWPORTS SQL\n");
        return 64;
    }
    FILE *file = fopen(positional[1], "r");
    if (!file) { perror(positional[1]); return 66; }
    int count = 0, capacity = 256;
    Viewport *viewports = malloc(sizeof *viewports * (size_t)capacity);
    char line[512];
    while (fgets(line, sizeof line, file)) {
        Viewport v = {0};
        if (sscanf(line, "%31s %lf %lf %lf %lf", v.label, &v.box[0], &v.box[1], &v.box[2], &v.box[3]) != 5) continue;
        if (count == capacity) viewports = realloc(viewports, sizeof *viewports * (size_t)(capacity *= 2));
        viewports[count++] = v;
    }
    fclose(file);
    if (count == 0) { fprintf(stderr, "%s: no viewports\n", positional[1]); return 65; }

    sqlite3 *db;
    sqlite3_stmt *statement;
    if (sqlite3_open_v2(positional[0], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK
        || sqlite3_prepare_v2(db, positional[2], -1, &statement, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", positional[0], sqlite3_errmsg(db));
        return 74;
    }
    /* Distinct labels, in order of first appearance. */
    const char **labels = malloc(sizeof *labels * (size_t)count);
    int nlabels = 0;
    for (int i = 0; i < count; i++) {
        int seen = 0;
        for (int l = 0; l < nlabels && !seen; l++) seen = !strcmp(labels[l], viewports[i].label);
        if (!seen) labels[nlabels++] = viewports[i].label;
    }
    double *p50 = calloc((size_t)(nlabels * passes), sizeof *p50);
    double *p99 = calloc((size_t)(nlabels * passes), sizeof *p99);
    double *mean = calloc((size_t)(nlabels * passes), sizeof *mean);
    double *scratch = malloc(sizeof *scratch * (size_t)count);
    unsigned long sink = 0;

    for (int pass = 0; pass <= passes; pass++) {            /* pass 0 warms the cache, untimed */
        for (int i = 0; i < count; i++) {
            double start = seconds();
            for (int k = 0; k < 4; k++) sqlite3_bind_double(statement, k + 1, viewports[i].box[k]);
            long rows = 0;
            int rc;
            while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
                for (int c = 0, n = sqlite3_column_count(statement); c < n; c++) {
                    switch (sqlite3_column_type(statement, c)) {
                    case SQLITE_INTEGER: sink += (unsigned long)sqlite3_column_int64(statement, c); break;
                    case SQLITE_FLOAT: sink += (unsigned long)(sqlite3_column_double(statement, c) * 1e6); break;
                    case SQLITE_TEXT: sink += (unsigned long)sqlite3_column_bytes(statement, c) + *sqlite3_column_text(statement, c); break;
                    case SQLITE_BLOB: sink += (unsigned long)sqlite3_column_bytes(statement, c); break;
                    }
                }
                rows++;
            }
            if (rc != SQLITE_DONE) { fprintf(stderr, "%s: %s\n", positional[0], sqlite3_errmsg(db)); return 74; }
            sqlite3_reset(statement);
            viewports[i].micros = (seconds() - start) * 1e6;
            viewports[i].rows = rows;
        }
        if (pass == 0) continue;
        for (int l = 0; l < nlabels; l++) {
            int n = 0;
            double sum = 0;
            for (int i = 0; i < count; i++)
                if (!strcmp(viewports[i].label, labels[l])) { scratch[n++] = viewports[i].micros; sum += viewports[i].micros; }
            qsort(scratch, (size_t)n, sizeof *scratch, by_value);
            p50[l * passes + pass - 1] = percentile(scratch, n, 0.50);
            p99[l * passes + pass - 1] = percentile(scratch, n, 0.99);
            mean[l * passes + pass - 1] = sum / n;
        }
    }
    for (int l = 0; l < nlabels; l++) {
        int n = 0;
        long total = 0;
        for (int i = 0; i < count; i++)
            if (!strcmp(viewports[i].label, labels[l])) { scratch[n++] = (double)viewports[i].rows; total += viewports[i].rows; }
        double rows_p50 = median(scratch, n);
        printf("{\"tool\":\"bbox_query\",\"method\":\"%s\",\"label\":\"%s\",\"queries\":%d,\"passes\":%d,"
               "\"p50_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f,\"rows_p50\":%.0f,\"rows_min\":%.0f,\"rows_max\":%.0f,\"rows_total\":%ld}\n",
               name, labels[l], n, passes, median(p50 + l * passes, passes), median(p99 + l * passes, passes),
               median(mean + l * passes, passes), rows_p50, scratch[0], scratch[n - 1], total);
    }
    fprintf(stderr, "(checksum %lu)\n", sink);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return 0;
}
