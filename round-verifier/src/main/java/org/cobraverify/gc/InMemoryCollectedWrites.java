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

    @Override
    public void put(String key, String value, Entry e) { map.put(key + '\0' + value, e); }

    @Override
    public Entry get(String key, String value) { return map.get(key + '\0' + value); }

    @Override
    public long size() { return map.size(); }

    @Override
    public void appendFrontier(String key, FrontierEntry e, Predicate<FrontierEntry> visible, long keepFrom) {
        frontiers.put(key, FrontierLog.append(frontiers.getOrDefault(key, List.of()), e, visible, keepFrom));
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
    public void importFrontierLog(String key, List<FrontierEntry> log) { frontiers.put(key, List.copyOf(log)); }

    @Override
    public void close() { map.clear(); frontiers.clear(); }
}
