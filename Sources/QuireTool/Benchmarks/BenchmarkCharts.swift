/// The SVG charts `quire bench … --svg DIR` draws from each benchmark's result (see
/// ``SVGChart``). Peer figures appear where they were measured: automerge-paper for the
/// text, autosave and delta benchmarks, the default scenario for the tree benchmark.

extension TextBenchmark.Result {
    var chart: SVGChart {
        let peers = trace == "automerge-paper"
        var chart = SVGChart(title: "quire bench text — \(trace)",
                             subtitle: "\(SVGChart.figure(Double(ops))) patches, median of \(runs) runs, \(SVGChart.build)")
        var merge: [SVGChart.Bar] = [.init(label: "Quire", value: merge_ms, source: .quire)]
        var size: [SVGChart.Bar] = [.init(label: "Quire", value: Double(history_bytes), source: .quire)]
        var load: [SVGChart.Bar] = [.init(label: "Quire", value: load_ms, source: .quire)]
        var keystroke: [SVGChart.Bar] = [.init(label: "Quire", value: keystroke_delta_bytes, source: .quire)]
        if peers {
            merge += [.init(label: "Loro 1.17 import", value: PeerFigures.loroImportMs, source: .peer),
                      .init(label: "Yrs (pycrdt) import", value: PeerFigures.yrsImportMs, source: .peer)]
            size += [.init(label: "Loro 1.17", value: PeerFigures.loroHistoryBytes, source: .peer),
                     .init(label: "Yrs (pycrdt)", value: PeerFigures.yrsHistoryBytes, source: .peer)]
            load += [.init(label: "Loro 1.17 snapshot", value: PeerFigures.loroSnapshotLoadMs, source: .peer)]
            keystroke += [.init(label: "Loro 1.17 update", value: PeerFigures.loroKeystrokeBytes, source: .peer),
                          .init(label: "Yrs (pycrdt) update", value: PeerFigures.yrsKeystrokeBytes, source: .peer)]
        }
        chart.panels = [
            .init(title: "merge the whole history into an empty replica", unit: "ms", bars: merge),
            .init(title: "the whole history encoded", unit: "bytes", bars: size),
            .init(title: "load the saved state", unit: "ms", bars: load),
            .init(title: "one keystroke's update", unit: "bytes", bars: keystroke),
        ]
        return chart
    }
}

extension LMDBBenchmark.Result {
    var chart: SVGChart {
        var chart = SVGChart(title: "quire bench lmdb — the LMDB layer against bare mdb_* calls",
                             subtitle: "durability \(durability), median of \(runs) runs, \(SVGChart.build)")
        var commit: [SVGChart.Bar] = [.init(label: "LMDB layer", value: commit_us, source: .quire),
                                      .init(label: "bare mdb_*", value: raw_commit_us, source: .baseline)]
        if durability == "full" {
            commit.append(.init(label: "py-lmdb durable commit", value: PeerFigures.pyLMDBDurableCommitMs * 1000, source: .peer))
        }
        chart.panels = [
            .init(title: "one tiny commit", unit: "µs", bars: commit),
            .init(title: "one point read", unit: "ns", bars: [.init(label: "LMDB layer", value: read_ns, source: .quire),
                                                              .init(label: "bare mdb_*", value: raw_read_ns, source: .baseline)]),
            .init(title: "bulk put of \(entries) entries", unit: "ms", bars: [.init(label: "LMDB layer", value: bulk_put_ms, source: .quire),
                                                                        .init(label: "bare mdb_*", value: raw_bulk_put_ms, source: .baseline)]),
            .init(title: "scan of \(entries) entries", unit: "ms", bars: [.init(label: "LMDB layer", value: scan_ms, source: .quire),
                                                                    .init(label: "bare mdb_*", value: raw_scan_ms, source: .baseline)]),
        ]
        return chart
    }
}

extension AutosaveBenchmark.Result {
    var chart: SVGChart {
        let peers = trace == "automerge-paper"
        var chart = SVGChart(title: "quire bench autosave — one durable commit per keystroke",
                             subtitle: "\(keystrokes) keystrokes of \(trace), \(runs) run(s), \(SVGChart.build)")
        var openRead: [SVGChart.Bar] = [.init(label: "Quire: open + read", value: open_and_read_ms, source: .quire)]
        var log: [SVGChart.Bar] = [.init(label: "Quire change-log entry", value: log_bytes_per_keystroke, source: .quire)]
        if peers {
            openRead.append(.init(label: "Loro 1.17 snapshot load", value: PeerFigures.loroSnapshotLoadMs, source: .peer))
            log += [.init(label: "Loro 1.17 update", value: PeerFigures.loroKeystrokeBytes, source: .peer),
                    .init(label: "Yrs (pycrdt) update", value: PeerFigures.yrsKeystrokeBytes, source: .peer)]
        }
        chart.panels = [
            .init(title: "durable keystroke commit, p50", unit: "ms", bars: [
                .init(label: "Quire keystroke", value: commit_p50_ms, source: .quire),
                .init(label: "bare mdb_* one-put commit", value: raw_commit_p50_ms, source: .baseline),
                .init(label: "py-lmdb durable commit", value: PeerFigures.pyLMDBDurableCommitMs, source: .peer),
            ]),
            .init(title: "no-sync keystroke commit, p50", unit: "ms", bars: [
                .init(label: "Quire keystroke", value: nosync_commit_p50_ms, source: .quire),
                .init(label: "bare mdb_* one-put commit", value: raw_nosync_commit_p50_ms, source: .baseline),
                .init(label: "py-lmdb no-sync commit", value: PeerFigures.pyLMDBNoSyncCommitMs, source: .peer),
            ]),
            .init(title: "bytes stored per keystroke", unit: "bytes", bars: log),
            .init(title: "open a store and read the \(document_chars)-character document", unit: "ms", bars: openRead),
        ]
        return chart
    }
}

extension DeltaBenchmark.Result {
    var chart: SVGChart {
        let peers = trace == "automerge-paper"
        var chart = SVGChart(title: "quire bench delta — \(trace)'s history as one delta file",
                             subtitle: "\(SVGChart.figure(Double(ops))) patches, median of \(runs) imports, \(SVGChart.build)")
        let oneChange = batch == Int.max || batched_changes <= 2 ? "one transaction" : "\(batch) patches per change"
        var importBars: [SVGChart.Bar] = [
            .init(label: "Quire, \(oneChange)", value: batched_import_ms, source: .quire),
            .init(label: "Quire, a change per keystroke", value: import_ms, source: .quire),
        ]
        var sizeBars: [SVGChart.Bar] = [
            .init(label: "Quire, \(oneChange)", value: Double(batched_delta_bytes), source: .quire),
            .init(label: "Quire, a change per keystroke", value: Double(delta_bytes), source: .quire),
        ]
        var keystroke: [SVGChart.Bar] = [.init(label: "Quire keystroke file", value: keystroke_file_bytes, source: .quire)]
        if peers {
            importBars += [.init(label: "Loro 1.17", value: PeerFigures.loroImportMs, source: .peer),
                           .init(label: "Yrs (pycrdt)", value: PeerFigures.yrsImportMs, source: .peer)]
            sizeBars += [.init(label: "Loro 1.17", value: PeerFigures.loroHistoryBytes, source: .peer),
                         .init(label: "Yrs (pycrdt)", value: PeerFigures.yrsHistoryBytes, source: .peer)]
            keystroke += [.init(label: "Loro 1.17 update", value: PeerFigures.loroKeystrokeBytes, source: .peer),
                          .init(label: "Yrs (pycrdt) update", value: PeerFigures.yrsKeystrokeBytes, source: .peer)]
        }
        chart.panels = [
            .init(title: "import the whole history into an empty store", unit: "ms", bars: importBars),
            .init(title: "the whole history as one file", unit: "bytes", bars: sizeBars),
            .init(title: "one keystroke as a file", unit: "bytes", bars: keystroke),
        ]
        return chart
    }
}

extension TreeBenchmark.Result {
    var chart: SVGChart {
        let peers = nodes == 10_000 && moves == 100_000 && replicas == 3
        var chart = SVGChart(title: "quire bench tree — concurrent moves",
                             subtitle: "\(SVGChart.figure(Double(nodes))) nodes, \(SVGChart.figure(Double(moves))) moves on \(replicas) replicas, seed \(seed), \(SVGChart.build)")
        var local: [SVGChart.Bar] = [.init(label: "Quire in memory", value: local_move_us, source: .quire),
                                     .init(label: "Quire persisted (\(durability))", value: persisted_move_us, source: .quire)]
        var merge: [SVGChart.Bar] = [.init(label: "Quire in memory", value: merge_ms, source: .quire),
                                     .init(label: "Quire persisted", value: persisted_merge_ms, source: .quire)]
        if peers {
            local.append(.init(label: "Loro 1.17", value: PeerFigures.loroLocalMoveUs, source: .peer))
            merge.append(.init(label: "Loro 1.17", value: PeerFigures.loroTreeMergeMs, source: .peer))
        }
        chart.panels = [
            .init(title: "one local move", unit: "µs", bars: local),
            .init(title: "merge the other replicas' \(remote_moves_per_replica) moves", unit: "ms", bars: merge),
        ]
        return chart
    }
}
