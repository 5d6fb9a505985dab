package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.keyindex.KeyEntry;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.api.Test;

/** Rows and key-index entries must use Flink's POJO serializer, never Kryo. */
class WalRowTypeTest {
  @Test
  void walRowIsAFlinkPojo() {
    TypeInformation<WalRow> type = TypeInformation.of(WalRow.class);
    assertThat(type).isNotInstanceOf(GenericTypeInfo.class).isInstanceOf(PojoTypeInfo.class);
  }

  @Test
  void keyEntryIsAFlinkPojo() {
    TypeInformation<KeyEntry> type = TypeInformation.of(KeyEntry.class);
    assertThat(type).isNotInstanceOf(GenericTypeInfo.class).isInstanceOf(PojoTypeInfo.class);
  }
}
