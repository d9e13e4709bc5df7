package org.cobraverify.gc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** {@link CollectedWrites} on the heap: grows with the history, so for tests and short runs only. */
public final class InMemoryCollectedWrites implements CollectedWrites {
    private final Map<String, Entry> map = new HashMap<>();
    private final Map<String, List<FrontierEntry>> frontiers = new HashMap<>();
    private long size;

    @Override
    public void put(String key, String value, Entry e) {
        map.put(key + '\0' + value, e);
        size++;
    }

    @Override
    public Entry get(String key, String value) {
        FrontierEntry f = FrontierLog.naming(frontierLog(key), value);
        return f != null ? FrontierLog.asEntry(f) : map.get(key + '\0' + value);
    }

    @Override
    public long size() { return size; }

    @Override
    public void appendFrontier(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) {
        List<FrontierEntry> before = frontierLog(key), after = FrontierLog.append(before, e, visible, keepFrom);
        for (FrontierEntry d : FrontierLog.droppedWrites(before, after)) map.put(key + '\0' + d.value(), FrontierLog.asEntry(d));
        frontiers.put(key, after);
        if (e.value() != null) size++;
        if (changed != null) changed.add(key);
    }

    @Override
    public List<FrontierEntry> frontierLog(String key) { return frontiers.getOrDefault(key, List.of()); }

    @Override
    public boolean hasFrontiers() { return !frontiers.isEmpty(); }

    private java.util.Set<String> changed;
    private long mark = -1;

    @Override
    public void markCheckpoint(long offset) { mark = offset; }

    @Override
    public long checkpointMark() { return mark; }

    @Override
    public boolean isEmpty() { return map.isEmpty() && frontiers.isEmpty() && mark < 0; }

    @Override
    public void trackFrontierChanges() { if (changed == null) changed = new java.util.HashSet<>(); }

    @Override
    public java.util.Set<String> takeChangedFrontiers() {
        if (changed == null || changed.isEmpty()) return java.util.Set.of();
        java.util.Set<String> out = changed;
        changed = new java.util.HashSet<>();
        return out;
    }

    @Override
    public void importFrontierLog(String key, List<FrontierEntry> log) {
        List<FrontierEntry> after = List.copyOf(log);
        for (FrontierEntry d : FrontierLog.droppedWrites(frontierLog(key), after)) map.put(key + '\0' + d.value(), FrontierLog.asEntry(d));
        frontiers.put(key, after);
    }

    @Override
    public void close() { map.clear(); frontiers.clear(); size = 0; }
}
