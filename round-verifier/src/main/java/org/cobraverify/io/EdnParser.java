package org.cobraverify.io;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small EDN reader, enough for Jepsen histories: maps, vectors, lists, sets, keywords, symbols,
 * integers, floats, strings, characters, {@code nil}, booleans, comments, {@code #_} discards and tagged
 * literals (the tag is dropped). Values: {@link Keyword}, {@code Long}, {@code Double}, {@code String},
 * {@code Boolean}, {@code null}, {@code List}, {@code Map}, {@code Set}. Errors carry line and column.
 */
final class EdnParser {
    /** An EDN keyword, without its colon. */
    record Keyword(String name) {
        @Override public String toString() { return ":" + name; }
    }

    /** An EDN symbol. */
    record Symbol(String name) {
        @Override public String toString() { return name; }
    }

    static final class EdnException extends Exception {
        final int line, col;
        EdnException(String msg, int line, int col) { super(msg); this.line = line; this.col = col; }
    }

    private static final Object EOF = new Object(), CLOSE = new Object();

    private final Reader in;
    private int peeked = -2;
    private int line = 1, col = 0;
    private int formLine;

    EdnParser(Reader in) { this.in = in; }

    /** Line on which the last form returned by {@link #next()} began. */
    int formLine() { return formLine; }

    int line() { return line; }

    /** Next top-level form, or {@code null} with {@link #atEnd()} true at end of input. */
    Object next() throws IOException, EdnException {
        skipWs();
        formLine = line;
        Object o = read();
        if (o == CLOSE) throw err("unexpected closing bracket");
        return o == EOF ? null : o;
    }

    boolean atEnd() throws IOException {
        try { skipWs(); } catch (EdnException e) { return false; }
        return peek() < 0;
    }

    private int peek() throws IOException {
        if (peeked == -2) peeked = in.read();
        return peeked;
    }

    private int take() throws IOException {
        int c = peek();
        peeked = -2;
        if (c == '\n') { line++; col = 0; } else col++;
        return c;
    }

    private EdnException err(String msg) { return new EdnException(msg, line, col); }

    private void skipWs() throws IOException, EdnException {
        while (true) {
            int c = peek();
            if (c == ',' || Character.isWhitespace(c)) { take(); continue; }
            if (c == ';') { while (peek() >= 0 && peek() != '\n') take(); continue; }
            return;
        }
    }

    private Object read() throws IOException, EdnException {
        skipWs();
        int c = peek();
        if (c < 0) return EOF;
        switch (c) {
            case '{': take(); return readMap();
            case '[': case '(': take(); return readSeq(c == '[' ? ']' : ')');
            case '}': case ']': case ')': take(); return CLOSE;
            case '"': take(); return readString();
            case '\\': take(); return readChar();
            case '#': {
                take();
                int d = peek();
                if (d == '{') { take(); return new HashSet<>(readSeq('}')); }
                if (d == '_') { take(); Object discarded = read(); if (discarded == EOF) throw err("end of input after #_"); return read(); }
                String tag = readToken();
                if (tag.isEmpty()) throw err("bad dispatch character after #");
                Object v = read();
                if (v == EOF || v == CLOSE) throw err("tag #" + tag + " without a value");
                return v;
            }
            default: return atom(readToken());
        }
    }

    private Map<Object, Object> readMap() throws IOException, EdnException {
        Map<Object, Object> m = new LinkedHashMap<>();
        int startLine = line;
        while (true) {
            Object k = read();
            if (k == CLOSE) return m;
            if (k == EOF) throw new EdnException("map opened on line " + startLine + " is never closed", line, col);
            Object v = read();
            if (v == CLOSE || v == EOF) throw err("map has a key without a value");
            m.put(k, v);
        }
    }

    private List<Object> readSeq(char close) throws IOException, EdnException {
        List<Object> l = new ArrayList<>();
        int startLine = line;
        while (true) {
            Object o = read();
            if (o == CLOSE) return l; // bracket kind mismatches are tolerated
            if (o == EOF) throw new EdnException("'" + (close == ']' ? '[' : close == ')' ? '(' : '{') + "' opened on line " + startLine + " is never closed", line, col);
            l.add(o);
        }
    }

    private String readString() throws IOException, EdnException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = take();
            if (c < 0) throw err("unterminated string");
            if (c == '"') return sb.toString();
            if (c == '\\') {
                int e = take();
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case '"' -> sb.append('"');
                    case '\\' -> sb.append('\\');
                    default -> sb.append((char) e);
                }
            } else sb.append((char) c);
        }
    }

    /** A character literal ({@code \\a}, {@code \\newline}): kept as its name, a string. */
    private Object readChar() throws IOException {
        return readToken();
    }

    private String readToken() throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = peek();
            if (c < 0 || Character.isWhitespace(c) || c == ',' || "{}[]()\";".indexOf(c) >= 0) return sb.toString();
            sb.append((char) take());
        }
    }

    private Object atom(String t) throws EdnException {
        if (t.isEmpty()) throw err("unexpected character '" + (char) peekSafe() + "'");
        if (t.equals("nil")) return null;
        if (t.equals("true")) return Boolean.TRUE;
        if (t.equals("false")) return Boolean.FALSE;
        if (t.charAt(0) == ':') return new Keyword(t.substring(1));
        char c = t.charAt(0);
        if (Character.isDigit(c) || ((c == '-' || c == '+') && t.length() > 1 && Character.isDigit(t.charAt(1)))) {
            String n = t.endsWith("N") || t.endsWith("M") ? t.substring(0, t.length() - 1) : t;
            try {
                return Long.parseLong(n.startsWith("+") ? n.substring(1) : n);
            } catch (NumberFormatException e) {
                try { return Double.parseDouble(n); } catch (NumberFormatException e2) { throw err("bad number '" + t + "'"); }
            }
        }
        return new Symbol(t);
    }

    private int peekSafe() { return peeked < 0 ? '?' : peeked; }
}
