/* SPDX-License-Identifier: MIT */
/*
 * libyaml events -> a small node tree that remembers line:col.
 *
 * The event API rather than the document API because the document API
 * resolves aliases and default tags silently: we want to refuse anchors,
 * aliases and tags (a policy is read by people deciding what to trust, so
 * every value is spelled out where it applies), and only events still show
 * them.  Scalars are kept as text; the grammar types them, so `off` stays
 * the string "off" and not YAML 1.1's boolean false.
 */
#include <stdio.h>
#include <yaml.h>

#include "policy_internal.h"
#include "util/util.h"

/* Internal: the file is abandoned after an error that has been reported. */
#define REPORTED (-EBADMSG)

struct ybuild {
        const struct pfile *f;
        const char *text;
        size_t len;
        yaml_parser_t parser;
};

struct pnode *pnode_free(struct pnode *n)
{
        if (!n)
                return NULL;
        for (size_t i = 0; i < n->n_kids; i++)
                pnode_free(n->kids[i]);
        free(n->kids);
        free(n->scalar);
        free(n);
        return NULL;
}

const char *pnode_kind_name(const struct pnode *n)
{
        switch (n->kind) {
        case PNODE_SCALAR:
                return "a scalar";
        case PNODE_SEQ:
                return "a sequence";
        case PNODE_MAP:
                return "a mapping";
        default:
                return "an invalid value";
        }
}

static struct pnode at(unsigned line, unsigned column)
{
        return (struct pnode) { .kind = PNODE_BAD, .line = line, .column = column };
}

/* Reader errors (bad UTF-8, control characters) carry only a byte offset. */
static struct pnode offset_to_mark(const struct ybuild *b, size_t offset)
{
        unsigned line = 1, column = 1;

        for (size_t i = 0; i < offset && i < b->len; i++) {
                if (b->text[i] == '\n') {
                        line++;
                        column = 1;
                } else
                        column++;
        }
        return at(line, column);
}

/* `write: [${WORKSPACE}]` is the mistake everyone makes: in a flow
 * collection `{` and `}` end a plain scalar, so the value must be quoted.
 * Say so when the line of the error has a `${`. */
static const char *flow_hint(const struct ybuild *b, size_t line0)
{
        const char *s = b->text, *end = b->text + b->len, *eol;

        for (size_t l = 0; l < line0 && s < end; l++) {
                s = memchr(s, '\n', (size_t) (end - s));
                s = s ? s + 1 : end;
        }
        eol = memchr(s, '\n', (size_t) (end - s));
        if (!eol)
                eol = end;
        if (memmem(s, (size_t) (eol - s), "${", 2))
                return " (inside [ ] or { }, quote a value that has ${...}: \"${WORKSPACE}\")";
        return "";
}

static int report_syntax(struct ybuild *b)
{
        const yaml_parser_t *p = &b->parser;
        struct pnode where;
        const char *hint = "";

        if (p->error == YAML_MEMORY_ERROR)
                return -ENOMEM;
        if (p->error == YAML_READER_ERROR)
                where = offset_to_mark(b, p->problem_offset);
        else {
                where = at((unsigned) p->problem_mark.line + 1, (unsigned) p->problem_mark.column + 1);
                hint = flow_hint(b, p->problem_mark.line);
        }
        perr(b->f, &where, "YAML syntax: %s%s%s; expected well-formed YAML%s",
             p->problem ? p->problem : "unknown problem",
             p->context ? " " : "", p->context ? p->context : "", hint);
        return REPORTED;
}

static int next_event(struct ybuild *b, yaml_event_t *ev)
{
        if (!yaml_parser_parse(&b->parser, ev))
                return report_syntax(b);
        return 0;
}

/* Anchors and tags are refused but do not stop the file: the node is
 * still built so later keys get checked too. */
static void check_props(const struct ybuild *b, const struct pnode *n,
                        const yaml_char_t *anchor, const yaml_char_t *tag)
{
        if (anchor)
                perr(b->f, n, "anchor &%s; expected explicit values (anchors and aliases are not supported)",
                     (const char *) anchor);
        if (tag) {
                /* Show "!!bool" as written, not libyaml's resolved form. */
                const char *t = (const char *) tag, *yaml11 = "tag:yaml.org,2002:";
                bool std = strncmp(t, yaml11, strlen(yaml11)) == 0;
                perr(b->f, n, "tag %s%s; expected an untagged value (the grammar types every value)",
                     std ? "!!" : "", std ? t + strlen(yaml11) : t);
        }
}

static int set_scalar(const struct ybuild *b, struct pnode *n, const yaml_event_t *ev)
{
        size_t len = ev->data.scalar.length;

        n->kind = PNODE_SCALAR;
        n->scalar = strndup((const char *) ev->data.scalar.value, len);
        if (!n->scalar)
                return -ENOMEM;
        /* "\0" in a double-quoted scalar would cut a path short unseen. */
        if (strlen(n->scalar) != len) {
                perr(b->f, n, "a NUL character in a value; expected text without NUL");
                n->kind = PNODE_BAD;
        }
        return 0;
}

static int push_kid(struct pnode *n, struct pnode *kid)
{
        struct pnode **nk = realloc(n->kids, (n->n_kids + 1) * sizeof(*nk));

        if (!nk) {
                pnode_free(kid);
                return -ENOMEM;
        }
        n->kids = nk;
        nk[n->n_kids++] = kid;
        return 0;
}

static int build_node(struct ybuild *b, yaml_event_t *ev, unsigned depth, struct pnode **ret);

/* Children until the matching end event. */
static int build_kids(struct ybuild *b, struct pnode *n, yaml_event_type_t end, unsigned depth)
{
        for (;;) {
                yaml_event_t ev;
                struct pnode *kid = NULL;
                int r = next_event(b, &ev);

                if (r < 0)
                        return r;
                if (ev.type == end) {
                        yaml_event_delete(&ev);
                        return 0;
                }
                r = build_node(b, &ev, depth + 1, &kid);
                if (r < 0)
                        return r;
                r = push_kid(n, kid);
                if (r < 0)
                        return r;
        }
}

/* Keys are looked up by name, so they must be plain scalars. */
static void check_keys(const struct ybuild *b, struct pnode *map)
{
        for (size_t i = 0; i + 1 < map->n_kids; i += 2) {
                struct pnode *k = map->kids[i];

                if (k->kind == PNODE_SEQ || k->kind == PNODE_MAP) {
                        perr(b->f, k, "%s as a mapping key; expected a scalar key", pnode_kind_name(k));
                        k->kind = PNODE_BAD;
                }
        }
}

/* Consumes *ev. */
static int build_node(struct ybuild *b, yaml_event_t *ev, unsigned depth, struct pnode **ret)
{
        _cleanup_(pnode_freep) struct pnode *n = calloc(1, sizeof(*n));
        yaml_event_type_t end = YAML_NO_EVENT;
        int r = 0;

        if (!n) {
                yaml_event_delete(ev);
                return -ENOMEM;
        }
        n->line = (unsigned) ev->start_mark.line + 1;
        n->column = (unsigned) ev->start_mark.column + 1;
        n->kind = PNODE_BAD;
        switch (ev->type) {
        case YAML_ALIAS_EVENT:
                perr(b->f, n, "alias *%s; expected explicit values (anchors and aliases are not supported)",
                     (const char *) ev->data.alias.anchor);
                break;
        case YAML_SCALAR_EVENT:
                check_props(b, n, ev->data.scalar.anchor, ev->data.scalar.tag);
                r = set_scalar(b, n, ev);
                break;
        case YAML_SEQUENCE_START_EVENT:
                check_props(b, n, ev->data.sequence_start.anchor, ev->data.sequence_start.tag);
                n->kind = PNODE_SEQ;
                end = YAML_SEQUENCE_END_EVENT;
                break;
        case YAML_MAPPING_START_EVENT:
                check_props(b, n, ev->data.mapping_start.anchor, ev->data.mapping_start.tag);
                n->kind = PNODE_MAP;
                end = YAML_MAPPING_END_EVENT;
                break;
        default: /* libyaml only hands out node events here */
                r = -EPROTO;
        }
        yaml_event_delete(ev);
        if (r < 0)
                return r;
        if (end != YAML_NO_EVENT) {
                if (depth >= POLICY_MAX_NESTING) {
                        perr(b->f, n, "values nested deeper than %d levels; expected the flat grammar of stockade.yaml(5)",
                             POLICY_MAX_NESTING);
                        return REPORTED;
                }
                r = build_kids(b, n, end, depth);
                if (r < 0)
                        return r;
                if (n->kind == PNODE_MAP)
                        check_keys(b, n);
        }
        *ret = TAKE_PTR(n);
        return 0;
}

/* The first event after a document's root: its end, then the stream's end.
 * A second document is refused rather than ignored: which one would win is
 * not obvious to the reader of the file. */
static int expect_single_document(struct ybuild *b)
{
        yaml_event_t ev;
        int r;

        for (int i = 0; i < 2; i++) {
                r = next_event(b, &ev);
                if (r < 0)
                        return r;
                if (ev.type == YAML_DOCUMENT_START_EVENT) {
                        struct pnode where = at((unsigned) ev.start_mark.line + 1,
                                                (unsigned) ev.start_mark.column + 1);
                        yaml_event_delete(&ev);
                        perr(b->f, &where, "a second YAML document; expected exactly one document per file");
                        return REPORTED;
                }
                yaml_event_delete(&ev);
        }
        return 0;
}

static int build_stream(struct ybuild *b, struct pnode **ret)
{
        _cleanup_(pnode_freep) struct pnode *root = NULL;
        yaml_event_t ev;
        int r;

        for (int i = 0; i < 2; i++) { /* STREAM-START, then DOCUMENT-START or STREAM-END */
                r = next_event(b, &ev);
                if (r < 0)
                        return r;
                if (ev.type == YAML_STREAM_END_EVENT) {
                        struct pnode where = at(1, 1);
                        yaml_event_delete(&ev);
                        perr(b->f, &where, "empty file; expected a mapping that starts with stockade: 1");
                        return REPORTED;
                }
                yaml_event_delete(&ev);
        }
        r = next_event(b, &ev);
        if (r < 0)
                return r;
        r = build_node(b, &ev, 0, &root);
        if (r < 0)
                return r;
        r = expect_single_document(b);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(root);
        return 0;
}

int pyaml_parse(const struct pfile *f, const char *text, size_t len, struct pnode **ret)
{
        struct ybuild b = { .f = f, .text = text, .len = len };
        struct pnode *root = NULL;
        int r;

        if (!yaml_parser_initialize(&b.parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&b.parser, (const unsigned char *) text, len);
        r = build_stream(&b, &root);
        yaml_parser_delete(&b.parser);
        if (r == REPORTED)
                r = 0;
        if (r < 0)
                return r;
        *ret = root;
        return 0;
}
