/* SPDX-License-Identifier: MIT */
/*
 * pngcheck FILE [RRGGBB...]: is FILE a real picture, not a blank page?
 * For `make check-browser`, which screenshots `stockade compare --html` in
 * headless Chromium.
 *
 * Decodes the PNG (8-bit RGB or RGBA, not interlaced: what Chromium
 * writes), checking every chunk's CRC, and prints
 *
 *   WIDTHxHEIGHT colours=N background=RRGGBB other=P% RRGGBB=K ...
 *
 * where N is the number of distinct colours (counted up to 4096), P the
 * share of pixels that are not the most common colour, and K the number of
 * pixels within 3 of each colour asked about (the page's bar colour: the
 * SVG was drawn).  Exit 0 if it decoded, 1 if it is not such a PNG, 2 for
 * usage.  The caller judges the numbers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_PIXELS (64u << 20)
#define MAX_FILE (256u << 20)
#define MAX_COLOURS 4096
#define MAX_WANTED 8

struct image {
        uint32_t width, height;
        unsigned channels;              /* 3 RGB, 4 RGBA */
        unsigned char *idat;            /* the concatenated IDAT data */
        size_t n_idat;
        unsigned char *pixels;          /* unfiltered rows, no filter bytes */
};

static int fail(const char *what)
{
        fprintf(stderr, "pngcheck: %s\n", what);
        return -1;
}

static unsigned char *read_file(const char *path, size_t *ret_n)
{
        FILE *f = fopen(path, "rb");
        unsigned char *buf = malloc(MAX_FILE);
        size_t n = f && buf ? fread(buf, 1, MAX_FILE, f) : 0;

        if (!f || !buf || ferror(f) || n == MAX_FILE) {
                fprintf(stderr, "pngcheck: cannot read %s: %s\n", path, f && buf ? "too big or unreadable" : strerror(errno));
                free(buf);
                buf = NULL;
        }
        if (f)
                fclose(f);
        *ret_n = n;
        return buf;
}

static uint32_t be32(const unsigned char *p)
{
        uint32_t v;

        memcpy(&v, p, 4);
        return ntohl(v);
}

static int on_ihdr(struct image *img, const unsigned char *d, uint32_t len)
{
        if (len != 13)
                return fail("IHDR of the wrong size");
        img->width = be32(d);
        img->height = be32(d + 4);
        if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12] != 0)
                return fail("not 8-bit RGB or RGBA, or interlaced (Chromium writes neither)");
        if (!img->width || !img->height || (uint64_t) img->width * img->height > MAX_PIXELS)
                return fail("no pixels, or too many");
        img->channels = d[9] == 6 ? 4 : 3;
        return 0;
}

static int on_idat(struct image *img, const unsigned char *d, uint32_t len)
{
        unsigned char *p = realloc(img->idat, img->n_idat + len);

        if (!p)
                return fail("out of memory");
        memcpy(p + img->n_idat, d, len);
        img->idat = p;
        img->n_idat += len;
        return 0;
}

/* Walks the chunks: IHDR first, IDATs, IEND; every CRC checked. */
static int parse_chunks(struct image *img, const unsigned char *buf, size_t n)
{
        static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
        size_t off = 8;

        if (n < 8 || memcmp(buf, sig, 8) != 0)
                return fail("no PNG signature");
        while (off + 12 <= n) {
                uint32_t len = be32(buf + off);
                const unsigned char *type = buf + off + 4, *data = type + 4;
                if (len > n - off - 12)
                        return fail("a chunk runs past the end of the file");
                if (crc32(crc32(0, NULL, 0), type, len + 4) != be32(data + len))
                        return fail("bad chunk CRC");
                if (off == 8 && memcmp(type, "IHDR", 4) != 0)
                        return fail("IHDR is not the first chunk");
                if (memcmp(type, "IHDR", 4) == 0 && on_ihdr(img, data, len) < 0)
                        return -1;
                if (memcmp(type, "IDAT", 4) == 0 && on_idat(img, data, len) < 0)
                        return -1;
                if (memcmp(type, "IEND", 4) == 0)
                        return img->n_idat ? 0 : fail("no IDAT");
                off += 12 + (size_t) len;
        }
        return fail("no IEND");
}

static unsigned char paeth(int a, int b, int c)
{
        int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

        return (unsigned char) (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undo one row's filter in place; prev is the row above, unfiltered, or NULL. */
static int unfilter_row(unsigned char *row, const unsigned char *prev, size_t stride, unsigned bpp, int filter)
{
        for (size_t i = 0; i < stride; i++) {
                int a = i >= bpp ? row[i - bpp] : 0, b = prev ? prev[i] : 0, c = prev && i >= bpp ? prev[i - bpp] : 0;
                switch (filter) {
                case 0: break;
                case 1: row[i] = (unsigned char) (row[i] + a); break;
                case 2: row[i] = (unsigned char) (row[i] + b); break;
                case 3: row[i] = (unsigned char) (row[i] + (a + b) / 2); break;
                case 4: row[i] = (unsigned char) (row[i] + paeth(a, b, c)); break;
                default: return fail("unknown row filter");
                }
        }
        return 0;
}

static int decode(struct image *img)
{
        size_t stride = (size_t) img->width * img->channels, raw_n = (stride + 1) * img->height;
        uLongf got = (uLongf) raw_n;
        unsigned char *raw = malloc(raw_n);

        img->pixels = malloc(stride * img->height);
        if (!raw || !img->pixels) {
                free(raw);
                return fail("out of memory");
        }
        if (uncompress(raw, &got, img->idat, (uLong) img->n_idat) != Z_OK || got != raw_n) {
                free(raw);
                return fail("the image data does not inflate to its size");
        }
        for (uint32_t y = 0; y < img->height; y++) {
                unsigned char *row = img->pixels + y * stride;
                memcpy(row, raw + y * (stride + 1) + 1, stride);
                if (unfilter_row(row, y ? row - stride : NULL, stride, img->channels, raw[y * (stride + 1)]) < 0) {
                        free(raw);
                        return -1;
                }
        }
        free(raw);
        return 0;
}

struct colour_count {
        uint32_t rgb;
        size_t n;
};

/* Distinct colours, up to MAX_COLOURS (the rest only counted as "more"). */
static size_t count_colours(const struct image *img, struct colour_count *tab, size_t *ret_top)
{
        size_t n = 0, top = 0, pixels = (size_t) img->width * img->height;

        for (size_t i = 0; i < pixels; i++) {
                const unsigned char *p = img->pixels + i * img->channels;
                uint32_t rgb = (uint32_t) p[0] << 16 | (uint32_t) p[1] << 8 | p[2];
                size_t k = 0;
                while (k < n && tab[k].rgb != rgb)
                        k++;
                if (k == n && n < MAX_COLOURS)
                        tab[n++] = (struct colour_count) { rgb, 0 };
                if (k < n && ++tab[k].n > tab[top].n)
                        top = k;
        }
        *ret_top = top;
        return n;
}

static size_t count_near(const struct image *img, uint32_t rgb)
{
        size_t n = 0, pixels = (size_t) img->width * img->height;

        for (size_t i = 0; i < pixels; i++) {
                const unsigned char *p = img->pixels + i * img->channels;
                n += abs(p[0] - (int) (rgb >> 16)) <= 3 && abs(p[1] - (int) (rgb >> 8 & 0xff)) <= 3 &&
                     abs(p[2] - (int) (rgb & 0xff)) <= 3;
        }
        return n;
}

static void report(const struct image *img, char **wanted, int n_wanted)
{
        struct colour_count *tab = calloc(MAX_COLOURS, sizeof(*tab));
        size_t top = 0, pixels = (size_t) img->width * img->height;
        size_t n = tab ? count_colours(img, tab, &top) : 0;

        printf("%ux%u colours=%zu%s background=%06x other=%.1f%%", img->width, img->height, n,
               n == MAX_COLOURS ? "+" : "", tab ? tab[top].rgb : 0,
               tab ? 100.0 * (double) (pixels - tab[top].n) / (double) pixels : 0);
        for (int i = 0; i < n_wanted; i++)
                printf(" %s=%zu", wanted[i], count_near(img, (uint32_t) strtoul(wanted[i], NULL, 16)));
        putchar('\n');
        free(tab);
}

static bool colour_arg_ok(const char *s)
{
        return strlen(s) == 6 && strspn(s, "0123456789abcdefABCDEF") == 6;
}

int main(int argc, char **argv)
{
        struct image img = { 0 };
        unsigned char *buf;
        size_t n;
        int r;

        if (argc < 2 || argc - 2 > MAX_WANTED) {
                fprintf(stderr, "usage: pngcheck FILE [RRGGBB...]\n");
                return 2;
        }
        for (int i = 2; i < argc; i++)
                if (!colour_arg_ok(argv[i])) {
                        fprintf(stderr, "pngcheck: \"%s\" is not RRGGBB\n", argv[i]);
                        return 2;
                }
        buf = read_file(argv[1], &n);
        r = buf ? parse_chunks(&img, buf, n) : -1;
        if (r == 0)
                r = decode(&img);
        if (r == 0)
                report(&img, argv + 2, argc - 2);
        free(buf);
        free(img.idat);
        free(img.pixels);
        return r == 0 ? 0 : 1;
}
