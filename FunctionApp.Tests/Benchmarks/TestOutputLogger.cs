using System.Text;
using BenchmarkDotNet.Loggers;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Benchmarks;

/// <summary>Sends BenchmarkDotNet's log to the test's output (shown when a test fails), line by line.</summary>
public sealed class TestOutputLogger(ITestOutputHelper output) : ILogger
{
    private readonly StringBuilder _line = new();

    public string Id => nameof(TestOutputLogger);

    public int Priority => 0;

    public void Write(LogKind logKind, string text)
    {
        lock (_line)
        {
            _line.Append(text);
        }
    }

    public void WriteLine()
    {
        lock (_line)
        {
            output.WriteLine(_line.ToString());
            _line.Clear();
        }
    }

    public void WriteLine(LogKind logKind, string text)
    {
        Write(logKind, text);
        WriteLine();
    }

    public void Flush()
    {
        lock (_line)
        {
            if (_line.Length > 0)
            {
                WriteLine();
            }
        }
    }
}
