package io.verglas.maintenance.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.events.CatalogEvent;
import io.verglas.events.TableMaintainedEvent;
import io.verglas.maintenance.events.MaintenanceEvents;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SignalFilterTest {
  @Test
  void anAppendMayNeedWorkButMaintenanceEventsNever() {
    assertThat(SignalFilter.mayNeedWork(commit("verglas/materializer"))).isTrue();
    assertThat(SignalFilter.mayNeedWork(commit(MaintenanceEvents.SOURCE))).isFalse();
    for (String operation : List.of(TableMaintainedEvent.EXPIRE_SNAPSHOTS,
        TableMaintainedEvent.REMOVE_ORPHAN_FILES)) {
      TableMaintainedEvent maintained = new TableMaintainedEvent("u:" + operation + ":c",
          MaintenanceEvents.SOURCE, Instant.EPOCH, List.of("db", "t"), "u", operation, null,
          List.of(), Map.of("data", 2L), "c", 5);
      assertThat(SignalFilter.mayNeedWork(maintained)).as(operation).isFalse();
    }
  }

  private static CatalogEvent commit(String source) {
    return new CatalogEvent("u:1", source, Instant.EPOCH, List.of("db", "t"), "u", 1, null,
        "append", 1, 0, Map.of("added-data-files", "1"), null, 5);
  }
}
