package io.verglas.maintenance.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/** JSON form of {@link MaintenanceStatus}, for the admin API and {@code table describe}. */
public final class MaintenanceStatusParser {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private MaintenanceStatusParser() {}

  public static String toJson(String table, MaintenanceStatus status) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("table", table);
    ObjectNode last = root.putObject("last-maintenance");
    if (status.lastMaintenanceSnapshotId() < 0) {
      last.putNull("snapshot-id");
      last.putNull("time");
    } else {
      last.put("snapshot-id", status.lastMaintenanceSnapshotId());
      last.put("time", Instant.ofEpochMilli(status.lastMaintenanceMillis()).toString());
    }
    ObjectNode pending = root.putObject("pending");
    pending.put("rewrite-groups", status.pendingGroups());
    pending.put("files", status.pendingFiles());
    pending.put("bytes", status.pendingBytes());
    ObjectNode files = root.putObject("files");
    files.put("data-files", status.dataFiles());
    files.put("data-bytes", status.dataBytes());
    files.put("small-files", status.smallFiles());
    files.put("delete-files", status.deleteFiles());
    files.put("snapshots", status.snapshots());
    ObjectNode policy = root.putObject("policy");
    policy.put("enabled", status.policy().enabled());
    policy.put("target-file-size-bytes", status.policy().targetFileSizeBytes());
    policy.put("min-file-size-bytes", status.policy().minFileSizeBytes());
    policy.put("max-file-size-bytes", status.policy().maxFileSizeBytes());
    return root.toString();
  }

  /** Human-readable lines for the command line. */
  public static String toText(MaintenanceStatus status) {
    String last = status.lastMaintenanceSnapshotId() < 0 ? "never"
        : Instant.ofEpochMilli(status.lastMaintenanceMillis()) + " (snapshot "
            + status.lastMaintenanceSnapshotId() + ")";
    return "maintenance:\n"
        + "  last maintenance: " + last + "\n"
        + "  pending work:     " + (status.pendingGroups() == 0 ? "none"
            : status.pendingGroups() + " rewrite group(s), " + status.pendingFiles() + " files, "
                + status.pendingBytes() + " bytes") + "\n"
        + "  data files:       " + status.dataFiles() + " (" + status.dataBytes() + " bytes, "
            + status.smallFiles() + " small)\n"
        + "  delete files:     " + status.deleteFiles() + "\n"
        + "  snapshots:        " + status.snapshots() + "\n"
        + "  policy:           " + (status.policy().enabled() ? "enabled" : "disabled")
            + ", target " + status.policy().targetFileSizeBytes() + " bytes\n";
  }
}
