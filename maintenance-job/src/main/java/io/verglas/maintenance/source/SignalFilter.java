package io.verglas.maintenance.source;

import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.maintenance.compact.Compactor;
import io.verglas.maintenance.events.MaintenanceEvents;
import java.util.Map;

/**
 * Which commits may leave work: anything that added files or deletes, except the maintenance
 * job's own commits (a compaction must not trigger the next one), and never a
 * maintenance event: expiry and orphan removal add no files. Reads only the event, so an
 * uninteresting commit costs no catalog or storage access.
 */
final class SignalFilter {
  private SignalFilter() {}

  static boolean mayNeedWork(FeedEvent event) {
    return event instanceof CatalogEvent commit && mayNeedWork(commit);
  }

  private static boolean mayNeedWork(CatalogEvent event) {
    if (MaintenanceEvents.SOURCE.equals(event.source())
        || event.summary().containsKey(Compactor.SUMMARY_KIND)) {
      return false;
    }
    Map<String, String> summary = event.summary();
    return count(summary, "added-data-files") > 0 || count(summary, "added-delete-files") > 0
        || count(summary, "added-dvs") > 0 || !summary.containsKey("added-data-files");
  }

  private static long count(Map<String, String> summary, String key) {
    try {
      return Long.parseLong(summary.getOrDefault(key, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
