package io.verglas.maintenance.orphan;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileInfo;

/**
 * Which files orphan removal may consider one table's own: the prefixes to list, and of the
 * files listed there, those that belong to no other table.
 *
 * <p>Design. Object stores list key prefixes, not directories, and table locations nest (the
 * JDBC catalog puts table {@code x} of namespace {@code ns.t} at {@code .../ns/t/x}, inside the
 * location of table {@code ns.t}). So a file is this table's only if all of these hold:
 * <ul>
 *   <li>it lies under a <em>root</em>: {@code <location>/data/} or {@code <location>/metadata/}
 *       (where Iceberg's default location provider and table operations write), or under a
 *       {@code write.data.path} / {@code write.metadata.path} override (and the deprecated
 *       data-path keys) that lies inside the table's location. Every root ends in {@code /}, so
 *       {@code ns/t2} is never listed for {@code ns/t}. Anything else under the location (a
 *       nested table named other than {@code data}/{@code metadata}, an operator's own files) is
 *       never listed;</li>
 *   <li>it lies under no <em>foreign</em> location: the location of another table that nests
 *       under this one, as the catalog reports it, or found in the listing itself: a directory
 *       {@code D} with an Iceberg metadata file in {@code D/metadata/} is a table location
 *       unless {@code D/metadata} is one of this table's metadata directories. The second rule
 *       also protects tables another catalog registered and tables dropped without purge.</li>
 * </ul>
 * A location equal to this table's is foreign too: then nothing is this table's alone and
 * nothing is removed.
 *
 * <p>Overrides that point outside the table's location are not listed: such a path may be
 * shared by several tables, and a file there that this table does not reach may be another
 * table's. They are reported by {@link #unlisted()} so the caller can say so.
 *
 * <p>Locations are compared normalized ({@link #normalize}): without scheme, leading and
 * trailing slashes, so {@code s3a://b/k}, {@code s3://b/k/} and {@code file:/b/k} are one.
 */
final class OrphanScope {
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*:)?/*");
  /** A table metadata file (plain or compressed) or a Hadoop catalog's version hint. */
  private static final Pattern METADATA_FILE = Pattern.compile(
      "^(.+)/metadata/([^/]*\\.metadata\\.json(\\.gz)?|version-hint\\.text)$");
  /** Overrides of where data files go, in Iceberg's order of precedence (all are honoured). */
  @SuppressWarnings("deprecation")
  private static final List<String> DATA_PATHS = List.of(TableProperties.WRITE_DATA_LOCATION,
      TableProperties.OBJECT_STORE_PATH, TableProperties.WRITE_FOLDER_STORAGE_LOCATION);

  private final String location;
  private final List<String> roots;
  private final Set<String> ownMetadataDirs;
  private final List<String> foreign;
  private final List<String> unlisted;

  private OrphanScope(String location, List<String> roots, Set<String> ownMetadataDirs,
      List<String> foreign, List<String> unlisted) {
    this.location = location;
    this.roots = roots;
    this.ownMetadataDirs = ownMetadataDirs;
    this.foreign = foreign;
    this.unlisted = unlisted;
  }

  /**
   * The scope of a table at {@code location} with {@code properties}, given the locations of
   * the catalog's other tables that may nest under it (others are ignored).
   */
  static OrphanScope of(String location, Map<String, String> properties,
      Collection<String> otherTables) {
    String base = stripTrailingSlashes(location);
    String normalized = normalize(base);
    List<String> candidates = new ArrayList<>(List.of(base + "/data", base + "/metadata"));
    Set<String> ownMetadataDirs = new LinkedHashSet<>(List.of(normalized + "/metadata"));
    List<String> unlisted = new ArrayList<>();
    for (String key : DATA_PATHS) {
      override(properties.get(key), normalized, candidates, unlisted);
    }
    String metadataPath = properties.get(TableProperties.WRITE_METADATA_LOCATION);
    if (override(metadataPath, normalized, candidates, unlisted)) {
      ownMetadataDirs.add(normalize(metadataPath));
    }
    List<String> foreign = new ArrayList<>();
    for (String other : otherTables) {
      String table = normalize(other);
      if (table.equals(normalized) || isUnder(table, normalized)) {
        foreign.add(table + "/");
      }
    }
    return new OrphanScope(normalized, outermost(candidates), ownMetadataDirs, foreign, unlisted);
  }

  /** Adds a set override inside the location as a candidate root; true if it did. */
  private static boolean override(String path, String location, List<String> candidates,
      List<String> unlisted) {
    if (path == null || path.isBlank()) {
      return false;
    }
    if (!isUnder(normalize(path), location)) {
      unlisted.add(path);
      return false;
    }
    candidates.add(stripTrailingSlashes(path));
    return true;
  }

  /** The candidates (without trailing slash) that lie under no other, each ending in /. */
  private static List<String> outermost(List<String> candidates) {
    List<String> roots = new ArrayList<>();
    for (String candidate : new LinkedHashSet<>(candidates)) {
      boolean nested = candidates.stream()
          .anyMatch(other -> isUnder(normalize(candidate), normalize(other)));
      if (!nested && roots.stream().noneMatch(r -> normalize(r).equals(normalize(candidate)))) {
        roots.add(candidate + "/");
      }
    }
    return List.copyOf(roots);
  }

  /** The prefixes to list, each ending in {@code /}, none under another. */
  List<String> roots() {
    return roots;
  }

  /** Overrides outside the table's location, which are not listed. */
  List<String> unlisted() {
    return List.copyOf(unlisted);
  }

  /** The files of {@code listed} that are this table's: under a root and no foreign location. */
  List<FileInfo> owned(List<FileInfo> listed) {
    List<String> excluded = new ArrayList<>(foreign);
    excluded.addAll(foundInListing(listed));
    List<FileInfo> owned = new ArrayList<>();
    for (FileInfo file : listed) {
      String path = normalize(file.location());
      if (underRoot(path) && excluded.stream().noneMatch(path::startsWith)) {
        owned.add(file);
      }
    }
    return owned;
  }

  /** Locations (normalized, ending in /) of tables whose metadata files were listed. */
  private Set<String> foundInListing(List<FileInfo> listed) {
    Set<String> found = new LinkedHashSet<>();
    for (FileInfo file : listed) {
      Matcher m = METADATA_FILE.matcher(normalize(file.location()));
      if (m.matches() && !ownMetadataDirs.contains(m.group(1) + "/metadata")) {
        found.add(m.group(1) + "/");
      }
    }
    return found;
  }

  private boolean underRoot(String path) {
    return roots.stream().anyMatch(root -> path.startsWith(normalize(root) + "/"));
  }

  /** True if normalized {@code path} lies strictly under normalized {@code dir}. */
  private static boolean isUnder(String path, String dir) {
    return path.startsWith(dir + "/");
  }

  /** A location without scheme and leading or trailing slashes. */
  static String normalize(String location) {
    return stripTrailingSlashes(SCHEME.matcher(location).replaceFirst(""));
  }

  private static String stripTrailingSlashes(String location) {
    int end = location.length();
    while (end > 0 && location.charAt(end - 1) == '/') {
      end--;
    }
    return location.substring(0, end);
  }

  @Override
  public String toString() {
    return "OrphanScope{location=" + location + ", roots=" + roots + ", foreign=" + foreign + "}";
  }
}
