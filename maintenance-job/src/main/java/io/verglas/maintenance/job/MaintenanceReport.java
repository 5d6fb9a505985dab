package io.verglas.maintenance.job;

import java.io.Serializable;

/** What one work item did to its table; {@code note} says why it did less, or what failed. */
public record MaintenanceReport(String table, int commits, int conflicts, int filesRewritten,
    boolean manifestsRewritten, int snapshotsExpired, int orphansRemoved, String note,
    long millis) implements Serializable {}
