using System.Text;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using WidgetSigning.Envelopes;
using WidgetSigning.Primitives;
using Newtonsoft.Json;

namespace FunctionApp.Benchmarks;

/// <summary>
/// Where reading a request spends its time: the seed's ~1 MB body (3,000 widgets) through
/// <see cref="WidgetEnvelopeReader"/> (the baseline), against each of its parts alone on the same data: UTF-8
/// decoding in <see cref="StreamReader"/>, Newtonsoft's tokenizer (which also creates every value string),
/// creating the value strings alone, GUID and date parsing, member-name lookup, the surrogate checks, and building
/// the widgets and their list. Measure only: the reader itself is being reworked elsewhere.
/// </summary>
[MemoryDiagnoser]
public class RequestBreakdownBenchmarks
{
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: true, throwOnInvalidBytes: true);
    private static readonly UTF8Encoding LenientUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: false);
    private static readonly string[] MemberNames =
    [
        "id", "property0", "property1", "property2", "property3", "property4",
        "property5", "property6", "property7", "property8", "property9", "createdUtc",
    ];

    private static readonly Dictionary<string, int> IgnoreCaseIndex = MemberNames.Select((n, i) => (n, i)).ToDictionary(p => p.n, p => p.i, StringComparer.OrdinalIgnoreCase);
    private static readonly Dictionary<string, int> OrdinalIndex = MemberNames.Select((n, i) => (n, i)).ToDictionary(p => p.n, p => p.i, StringComparer.Ordinal);

    private readonly WidgetEnvelopeReader _reader = new();
    private readonly char[] _chars = new char[4096];
    private byte[] _body = null!;
    private MemoryStream _stream = null!;
    private string[] _ids = null!;
    private string[] _dates = null!;
    private string[] _properties = null!;
    private string[] _names = null!;
    private char[] _valueChars = null!;
    private int[] _valueLengths = null!;
    private Widget[] _widgets = null!;
    private DefaultJsonNameTable _nameTable = null!;

    /// <summary>The body and every value in it, as the reader meets them.</summary>
    [GlobalSetup]
    public void Setup()
    {
        var data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        _body = data.SeedBody();
        _stream = new MemoryStream(_body, writable: false);
        _nameTable = new DefaultJsonNameTable();
        _nameTable.Add("widgets");
        foreach (var name in MemberNames)
        {
            _nameTable.Add(name);
        }

        var ids = new List<string>();
        var dates = new List<string>();
        var properties = new List<string>();
        var names = new List<string>();
        using (var reader = NewJsonReader(_nameTable))
        {
            while (reader.Read())
            {
                if (reader.TokenType == JsonToken.PropertyName)
                {
                    var name = (string)reader.Value!;
                    names.Add(name);
                    reader.Read();
                    if (reader.TokenType != JsonToken.String)
                    {
                        continue;
                    }

                    var value = (string)reader.Value!;
                    (name == "id" ? ids : name == "createdUtc" ? dates : properties).Add(value);
                }
            }
        }

        _ids = [.. ids];
        _dates = [.. dates];
        _properties = [.. properties];
        _names = [.. names.Where(n => n != "widgets")];
        var all = _ids.Concat(_properties).Concat(_dates).ToArray();
        _valueChars = string.Concat(all).ToCharArray();
        _valueLengths = all.Select(v => v.Length).ToArray();
        _widgets = _reader.Read(new MemoryStream(_body)).Widgets.ToArray();
        if (_widgets.Length != BenchmarkData.SeedWidgetCount || _ids.Length != _widgets.Length || _dates.Length != _widgets.Length)
        {
            throw new InvalidOperationException("The request breakdown did not find the seed envelope's values.");
        }
    }

    /// <summary>Disposes the body stream.</summary>
    [GlobalCleanup]
    public void Cleanup() => _stream.Dispose();

    /// <summary>All of it: <see cref="WidgetEnvelopeReader.Read(Stream)"/> on the ~1 MB body.</summary>
    [Benchmark(Baseline = true)]
    public int Reader_Full()
    {
        _stream.Position = 0;
        return _reader.Read(_stream).Widgets.Count;
    }

    /// <summary>UTF-8 decoding alone: the reader's <see cref="StreamReader"/> (strict UTF-8, 4 KB buffer) drained into a 4 KB char buffer.</summary>
    [Benchmark]
    public int Decode_StreamReader_Strict4KB() => Drain(StrictUtf8, 4096);

    /// <summary>Decoding with a lenient decoder (for the cost of throwOnInvalidBytes).</summary>
    [Benchmark]
    public int Decode_StreamReader_Lenient4KB() => Drain(LenientUtf8, 4096);

    /// <summary>Decoding through a 32 KB buffer (fewer refills).</summary>
    [Benchmark]
    public int Decode_StreamReader_Strict32KB() => Drain(StrictUtf8, 32 * 1024);

    /// <summary>Newtonsoft's tokenizer as the reader sets it up, every token read and nothing checked (decoding included, value strings created).</summary>
    [Benchmark]
    public int Tokenize_JsonTextReader()
    {
        _stream.Position = 0;
        using var reader = NewJsonReader(_nameTable);
        var tokens = 0;
        while (reader.Read())
        {
            tokens++;
        }

        return tokens;
    }

    /// <summary>The reader's byte scanner alone (<see cref="StrictJsonGuard"/>): every byte pulled through it into a 4 KB buffer.</summary>
    [Benchmark]
    public long Scanner_Alone()
    {
        _stream.Position = 0;
        using var scanner = new StrictJsonGuard(_stream);
        var buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(4096);
        long total = 0;
        int read;
        while ((read = scanner.Read(buffer, 0, 4096)) > 0)
        {
            total += read;
        }

        System.Buffers.ArrayPool<byte>.Shared.Return(buffer);
        return total;
    }

    /// <summary>
    /// The bound on running the byte scanner ahead on the spare core: Newtonsoft's tokenizer over the plain bytes on
    /// this thread while a thread-pool thread scans the same bytes. Nothing hands over between them, so this is the most
    /// that moving the scanner can save, before the gating that would keep every error answer identical.
    /// </summary>
    [Benchmark]
    public int Tokenize_WhileTheOtherCoreScans()
    {
        var body = _body;
        var scan = Task.Run(() =>
        {
            using var scanner = new StrictJsonGuard(new MemoryStream(body, writable: false));
            var buffer = System.Buffers.ArrayPool<byte>.Shared.Rent(4096);
            while (scanner.Read(buffer, 0, 4096) > 0)
            {
            }

            System.Buffers.ArrayPool<byte>.Shared.Return(buffer);
        });
        var tokens = Tokenize_JsonTextReader();
        scan.GetAwaiter().GetResult();
        return tokens;
    }

    /// <summary>Newtonsoft's tokenizer as in <see cref="Tokenize_JsonTextReader"/>, over the byte scanner as the reader sets it up.</summary>
    [Benchmark]
    public int Tokenize_OverScanner()
    {
        _stream.Position = 0;
        using var scanner = new StrictJsonGuard(_stream);
        using var reader = new JsonTextReader(new StreamReader(scanner, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 4096, leaveOpen: true))
        {
            ArrayPool = JsonCharArrayPool.Instance,
            PropertyNameTable = _nameTable,
            DateParseHandling = DateParseHandling.None,
            MaxDepth = 8,
            CloseInput = true,
        };
        var tokens = 0;
        while (reader.Read())
        {
            tokens++;
        }

        return tokens;
    }

    /// <summary>Creating the 36,000 value strings alone (ids, properties, dates) from chars.</summary>
    [Benchmark]
    public int Strings_Create36000()
    {
        var chars = _valueChars.AsSpan();
        var total = 0;
        foreach (var length in _valueLengths)
        {
            total += new string(chars.Slice(0, length)).Length;
            chars = chars.Slice(length);
        }

        return total;
    }

    /// <summary>3,000 <c>Guid.TryParse</c> (any format, as the reader does).</summary>
    [Benchmark]
    public int Guid_TryParse3000()
    {
        var ok = 0;
        foreach (var id in _ids)
        {
            ok += Guid.TryParse(id, out _) ? 1 : 0;
        }

        return ok;
    }

    /// <summary>3,000 <c>Guid.TryParseExact(..., "D")</c>: a possible fast path before the any-format parse.</summary>
    [Benchmark]
    public int Guid_TryParseExactD3000()
    {
        var ok = 0;
        foreach (var id in _ids)
        {
            ok += Guid.TryParseExact(id, "D", out _) ? 1 : 0;
        }

        return ok;
    }

    /// <summary>3,000 <c>IsoDateTimeParser.TryParse</c>.</summary>
    [Benchmark]
    public int Date_IsoParser3000()
    {
        var ok = 0;
        foreach (var date in _dates)
        {
            ok += IsoDateTimeParser.TryParse(date, out _, out _) ? 1 : 0;
        }

        return ok;
    }

    /// <summary>36,000 member-name lookups, case-insensitive dictionary (as the reader does).</summary>
    [Benchmark]
    public int Members_IgnoreCaseLookup36000()
    {
        var sum = 0;
        foreach (var name in _names)
        {
            sum += IgnoreCaseIndex.TryGetValue(name, out var i) ? i : -1;
        }

        return sum;
    }

    /// <summary>The same lookups, ordinal first (exact spelling, the common case), case-insensitive only on a miss.</summary>
    [Benchmark]
    public int Members_OrdinalThenIgnoreCase36000()
    {
        var sum = 0;
        foreach (var name in _names)
        {
            sum += OrdinalIndex.TryGetValue(name, out var i) || IgnoreCaseIndex.TryGetValue(name, out i) ? i : -1;
        }

        return sum;
    }

    /// <summary>
    /// The same lookups, predicting the next member (members usually arrive in canonical order) and comparing the
    /// reference the name table interned; the dictionary only when the prediction misses.
    /// </summary>
    [Benchmark]
    public int Members_PredictedReference36000()
    {
        var sum = 0;
        var expected = 0;
        foreach (var name in _names)
        {
            var index = ReferenceEquals(name, MemberNames[expected]) ? expected : IgnoreCaseIndex.TryGetValue(name, out var i) ? i : -1;
            expected = index < 0 || index == MemberNames.Length - 1 ? 0 : index + 1;
            sum += index;
        }

        return sum;
    }

    /// <summary>The per-value surrogate checks on the 30,000 property strings: a range search, and a search for U+FFFD.</summary>
    [Benchmark]
    public int Surrogates_Check30000()
    {
        var hits = 0;
        foreach (var value in _properties)
        {
            hits += value.AsSpan().IndexOfAnyInRange('\uD800', '\uDFFF') >= 0 || value.Contains('\uFFFD', StringComparison.Ordinal) ? 1 : 0;
        }

        return hits;
    }

    /// <summary>The reader's own per-value check: one range search for a surrogate (U+FFFD is the scanner's business).</summary>
    [Benchmark]
    public int Surrogates_RangeOnly30000()
    {
        var hits = 0;
        foreach (var value in _properties)
        {
            hits += value.AsSpan().IndexOfAnyInRange('\uD800', '\uDFFF') >= 0 ? 1 : 0;
        }

        return hits;
    }

    /// <summary>One pass instead of two: nothing at or above U+D800 means neither a surrogate nor U+FFFD (the careful checks only then).</summary>
    [Benchmark]
    public int Surrogates_OnePassAboveD7FF30000()
    {
        var hits = 0;
        foreach (var value in _properties)
        {
            hits += value.AsSpan().IndexOfAnyExceptInRange('\0', '\uD7FF') >= 0 ? 1 : 0;
        }

        return hits;
    }

    /// <summary>Building 3,000 widgets as the reader does: a <c>string[10]</c> per widget, then the widget, added to a list that grows.</summary>
    [Benchmark]
    public int Widgets_BuildIntoGrowingList()
    {
        var list = new List<Widget>();
        var p = _properties;
        for (var w = 0; w < _widgets.Length; w++)
        {
            var properties = new string[10];
            for (var i = 0; i < 10; i++)
            {
                properties[i] = p[(w * 10) + i];
            }

            list.Add(NewWidget(properties, _widgets[w]));
        }

        return list.Count;
    }

    /// <summary>The same with one reused <c>string[10]</c> and a list presized from the body's length.</summary>
    [Benchmark]
    public int Widgets_BuildReusedArrayPresizedList()
    {
        var list = new List<Widget>(_body.Length / 300);
        var p = _properties;
        var properties = new string[10];
        for (var w = 0; w < _widgets.Length; w++)
        {
            for (var i = 0; i < 10; i++)
            {
                properties[i] = p[(w * 10) + i];
            }

            list.Add(NewWidget(properties, _widgets[w]));
        }

        return list.Count;
    }

    private static Widget NewWidget(string[] p, Widget source) => new()
    {
        Id = source.Id,
        Property0 = p[0], Property1 = p[1], Property2 = p[2], Property3 = p[3], Property4 = p[4],
        Property5 = p[5], Property6 = p[6], Property7 = p[7], Property8 = p[8], Property9 = p[9],
        CreatedUtc = source.CreatedUtc,
    };

    private JsonTextReader NewJsonReader(DefaultJsonNameTable names)
    {
        _stream.Position = 0;
        return new JsonTextReader(new StreamReader(_stream, StrictUtf8, detectEncodingFromByteOrderMarks: false, bufferSize: 4096, leaveOpen: true))
        {
            ArrayPool = JsonCharArrayPool.Instance,
            PropertyNameTable = names,
            DateParseHandling = DateParseHandling.None,
            MaxDepth = 8,
            CloseInput = true,
        };
    }

    private int Drain(Encoding encoding, int bufferSize)
    {
        _stream.Position = 0;
        using var text = new StreamReader(_stream, encoding, detectEncodingFromByteOrderMarks: false, bufferSize: bufferSize, leaveOpen: true);
        var total = 0;
        int read;
        while ((read = text.Read(_chars, 0, _chars.Length)) > 0)
        {
            total += read;
        }

        return total;
    }
}
