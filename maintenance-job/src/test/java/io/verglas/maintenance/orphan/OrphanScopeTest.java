package io.verglas.maintenance.orphan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileInfo;
import org.junit.jupiter.api.Test;

class OrphanScopeTest {
  private static final String T = "s3://b/wh/ns/t";

  private static List<FileInfo> files(String... locations) {
    return Arrays.stream(locations).map(l -> new FileInfo(l, 1, 0)).toList();
  }

  private static List<String> owned(OrphanScope scope, String... locations) {
    return scope.owned(files(locations)).stream().map(FileInfo::location).toList();
  }

  @Test
  void rootsAreTheDataAndMetadataPrefixesEachEndingInASlash() {
    assertThat(OrphanScope.of(T, Map.of(), List.of()).roots())
        .containsExactly(T + "/data/", T + "/metadata/");
    assertThat(OrphanScope.of(T + "//", Map.of(), List.of()).roots())
        .as("no double slash").containsExactly(T + "/data/", T + "/metadata/");
  }

  @Test
  void filesOutsideTheRootsAreNeverOwned() {
    OrphanScope scope = OrphanScope.of(T, Map.of(), List.of());

    assertThat(owned(scope, T + "/data/a.parquet", T + "2/data/b.parquet",
        T + "_archive/metadata/v1.metadata.json", T + "/x/data/c.parquet", T + "/notes.txt",
        T + "/database/d.parquet"))
        .containsExactly(T + "/data/a.parquet");
  }

  @Test
  void locationsOfNestedTablesAreExcludedWhateverTheirScheme() {
    OrphanScope scope = OrphanScope.of(T, Map.of(),
        List.of("s3a://b/wh/ns/t/data/", "s3://b/wh/ns/t2", "s3://b/wh/other"));

    assertThat(owned(scope, T + "/data/data/a.parquet", T + "/data/metadata/x.avro",
        T + "/metadata/snap-1.avro", "s3a://b/wh/ns/t/metadata/m.avro"))
        .containsExactly(T + "/metadata/snap-1.avro", "s3a://b/wh/ns/t/metadata/m.avro");
  }

  @Test
  void aTableSharingTheLocationLeavesNothingOwned() {
    OrphanScope scope = OrphanScope.of(T, Map.of(), List.of(T + "/"));

    assertThat(owned(scope, T + "/data/a.parquet", T + "/metadata/v1.metadata.json")).isEmpty();
  }

  @Test
  void aDirectoryWithAnotherTablesMetadataFileIsAnotherTable() {
    OrphanScope scope = OrphanScope.of(T, Map.of(), List.of());

    assertThat(owned(scope,
        T + "/metadata/00001-u.metadata.json",
        T + "/metadata/hidden/metadata/00000-u.gz.metadata.json",
        T + "/metadata/hidden/data/a.parquet",
        T + "/data/h/metadata/version-hint.text",
        T + "/data/h/data/b.parquet",
        T + "/data/region=eu/c.parquet"))
        .containsExactly(T + "/metadata/00001-u.metadata.json", T + "/data/region=eu/c.parquet");
  }

  @Test
  void overridesInsideTheLocationAreRootsThoseOutsideAreReportedNotListed() {
    OrphanScope scope = OrphanScope.of(T, Map.of(
        "write.data.path", T + "/custom-data/",
        "write.object-storage.path", T + "/data/objects",
        "write.metadata.path", "s3://b/shared/metadata"), List.of());

    assertThat(scope.roots())
        .containsExactly(T + "/data/", T + "/metadata/", T + "/custom-data/");
    assertThat(scope.unlisted()).containsExactly("s3://b/shared/metadata");
    assertThat(owned(scope, T + "/custom-data/a.parquet", "s3://b/shared/metadata/v.json"))
        .containsExactly(T + "/custom-data/a.parquet");
  }

  @Test
  void aMetadataOverrideInsideTheLocationHoldsTheTablesOwnMetadataFiles() {
    OrphanScope scope = OrphanScope.of(T, Map.of("write.metadata.path", T + "/m/metadata"),
        List.of());

    assertThat(owned(scope, T + "/m/metadata/00002-u.metadata.json", T + "/data/a.parquet"))
        .as("its own metadata files do not make %s/m another table", T)
        .containsExactly(T + "/m/metadata/00002-u.metadata.json", T + "/data/a.parquet");
  }

  @Test
  void localLocationsCompareWithAndWithoutAuthority() {
    OrphanScope scope = OrphanScope.of("file:///tmp/wh/ns/t", Map.of(),
        List.of("/tmp/wh/ns/t/data/x"));

    assertThat(owned(scope, "file:/tmp/wh/ns/t/data/a.parquet",
        "file:/tmp/wh/ns/t/data/x/data/b.parquet"))
        .containsExactly("file:/tmp/wh/ns/t/data/a.parquet");
  }

  @Test
  void theNamespaceBelowATableIsNamedLikeTheTable() {
    assertThat(NestedTables.namespaceOf(TableIdentifier.of(Namespace.of("ns", "a"), "t")))
        .isEqualTo(Namespace.of("ns", "a", "t"));
  }
}
