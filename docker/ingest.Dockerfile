# An Arrow Flight ingest server by itself (io.verglas.ingest.IngestServerMain): it validates
# rows against the catalog's schema and acknowledges them once their WAL segment is stored.
# Build from the repository root:  docker build -f docker/ingest.Dockerfile -t verglas/ingest .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl cli -am package \
 && sed -i 's#/root/.m2/repository#/opt/verglas/repository#g' cli/target/launcher.classpath

FROM eclipse-temurin:17-jre
WORKDIR /opt/verglas
COPY --from=build /root/.m2/repository /opt/verglas/repository
COPY --from=build /src/cli/target/verglas-cli.jar /src/cli/target/launcher.classpath /opt/verglas/cli/target/
ENV JAVA_OPTS="-Xms256m -Xmx2g"
EXPOSE 8815
# Arrow needs java.nio opened; without it Flight fails with a vague CANCELLED.
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED -cp /opt/verglas/cli/target/verglas-cli.jar:$(cat /opt/verglas/cli/target/launcher.classpath) io.verglas.ingest.IngestServerMain \"$@\"", "ingest"]
