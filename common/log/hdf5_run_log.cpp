#include "common/log/hdf5_run_log.h"

#include "common/log/unlocked_log_reads.h"

#include <H5Cpp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace recurlab::experiments {

namespace {

int unlocked_log_reads = 0;  // live UnlockedLogReads objects

// Rows per chunk of a table: small enough that a run with few rows wastes little space,
// large enough that a long table does not drown in chunk metadata.
constexpr hsize_t kTableChunkRows = 128;

std::string parentFolder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool fileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// "a/b", "/a/b/" -> "/a/b"; "" and "/" -> "/".
std::string normalize(const std::string& path) {
  std::string out = "/";
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) {
      if (out.size() > 1) out += '/';
      out += path.substr(i, j - i);
    }
    i = j + 1;
  }
  return out;
}

std::vector<std::string> components(const std::string& normalized) {
  std::vector<std::string> parts;
  size_t i = 1;
  while (i < normalized.size()) {
    size_t j = normalized.find('/', i);
    if (j == std::string::npos) j = normalized.size();
    parts.push_back(normalized.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

std::string parentOf(const std::string& normalized) {
  const size_t slash = normalized.rfind('/');
  return slash == 0 ? "/" : normalized.substr(0, slash);
}

// A group or a dataset, whichever the path names (H5Object's destructor is protected, so it
// cannot be owned through a base pointer).
class OpenObject {
 public:
  explicit OpenObject(H5::Group g) : group_(std::move(g)), is_group_(true) {}
  explicit OpenObject(H5::DataSet d) : dataset_(std::move(d)), is_group_(false) {}
  H5::H5Object* operator->() {
    return is_group_ ? static_cast<H5::H5Object*>(&group_) : &dataset_;
  }

 private:
  H5::Group group_;
  H5::DataSet dataset_;
  bool is_group_;
};

// A writable log's file access: in memory, read from the file when it exists, written only
// by Impl::commit. HDF5's own file lock is off: the file it reads is replaced at the first
// write anyway, and the one-writer rule is Impl::lockForWriting's.
H5::FileAccPropList inMemory() {
  H5::FileAccPropList access;
  access.setCore(1 << 16, false);
  H5Pset_file_locking(access.getId(), false, true);
  return access;
}

H5::StrType utf8VariableString() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

}  // namespace

std::vector<double> Table::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  if (it == columns.end()) {
    std::string known;
    for (const auto& c : columns) known += (known.empty() ? "" : ", ") + c;
    throw std::runtime_error("Table: no column '" + name + "' (columns: " + known + ")");
  }
  const size_t j = static_cast<size_t>(it - columns.begin());
  std::vector<double> out;
  out.reserve(rows.size());
  for (const auto& row : rows) out.push_back(row[j]);
  return out;
}

struct Hdf5RunLog::Impl {
  std::string path;
  Mode mode;
  H5::H5File file;
  std::vector<char> image;  // the last file image written (reused buffer)
  int lock_fd = -1;         // the writer's flock on `<path>.lock`

  // One writer per log: the file itself is replaced at every write, so the lock lives on a
  // file beside it, removed when the writer closes the log. A lock file left by a killed
  // writer is taken over. After flock, the name must still be the locked file: a writer
  // closing at that moment may have removed it, and a third would then lock a new one.
  void lockForWriting() {
    const std::string lock = path + ".lock";
    for (;;) {
      const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        throw std::runtime_error("Hdf5RunLog: cannot create " + lock + ": " + std::strerror(errno));
      if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);
        throw std::runtime_error("Hdf5RunLog: another process is writing " + path + " (it holds " +
                                 lock + "): is this run already running? Let it finish or stop "
                                 "it, then run again");
      }
      struct stat held {}, named {};
      if (::fstat(fd, &held) == 0 && ::stat(lock.c_str(), &named) == 0 &&
          held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
        lock_fd = fd;
        return;
      }
      ::close(fd);
    }
  }

  void unlock() {
    if (lock_fd < 0) return;
    ::unlink((path + ".lock").c_str());  // while still held: see lockForWriting
    ::close(lock_fd);
    lock_fd = -1;
  }

  ~Impl() { unlock(); }

  // Runs an HDF5 operation and turns its exception into one that names the file and object.
  template <typename F>
  auto guarded(const std::string& what, F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const H5::Exception& e) {
      throw std::runtime_error("Hdf5RunLog " + path + ": " + what + ": " + e.getDetailMsg());
    }
  }

  // A writable log lives in memory (HDF5's core driver, no backing store) and every write ends
  // here: the whole file image goes to `<path>.writing`, which then replaces the log by
  // rename. HDF5 writes one change as several blocks in place, so a SIGKILL inside a write to
  // the file itself can leave it half old, half new (seen as unreadable groups and wrong rows
  // on resume); a rename leaves it old or new. Logs are kilobytes to a few megabytes.
  // `durable`: fsync the image before it replaces the log (sync()).
  void commit(bool durable = false) {
    file.flush(H5F_SCOPE_GLOBAL);
    const ssize_t size = H5Fget_file_image(file.getId(), nullptr, 0);
    if (size < 0) throw std::runtime_error("Hdf5RunLog " + path + ": cannot take the file image");
    image.resize(static_cast<size_t>(size));
    if (H5Fget_file_image(file.getId(), image.data(), image.size()) != size)
      throw std::runtime_error("Hdf5RunLog " + path + ": cannot take the file image");
    const std::string staged = path + ".writing";
    const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
      throw std::runtime_error("Hdf5RunLog: cannot write " + staged + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < image.size()) {
      const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw std::runtime_error("Hdf5RunLog: cannot write " + staged + ": " + why);
      }
      done += static_cast<size_t>(n);
    }
    if (durable && ::fsync(fd) != 0) {
      ::close(fd);
      throw std::runtime_error("Hdf5RunLog: fsync of " + staged + " failed");
    }
    ::close(fd);
    if (::rename(staged.c_str(), path.c_str()) != 0)
      throw std::runtime_error("Hdf5RunLog: cannot put " + staged + " in place of " + path + ": " +
                               std::strerror(errno));
  }

  void requireWritable(const std::string& what) const {
    if (mode == Mode::ReadOnly)
      throw std::runtime_error("Hdf5RunLog " + path + ": cannot " + what +
                               ": the log is open read-only");
  }

  bool linkExists(const std::string& normalized) const {
    if (normalized == "/") return true;
    std::string prefix;
    for (const auto& part : components(normalized)) {
      prefix += "/" + part;
      const htri_t r = H5Lexists(file.getId(), prefix.c_str(), H5P_DEFAULT);
      if (r <= 0) return false;
    }
    return true;
  }

  H5O_type_t objectType(const std::string& normalized) const {
    H5O_info_t info;
    if (H5Oget_info_by_name(file.getId(), normalized.c_str(), &info, H5P_DEFAULT) < 0)
      throw std::runtime_error("Hdf5RunLog " + path + ": cannot inspect '" + normalized + "'");
    return info.type;
  }

  OpenObject openObject(const std::string& object) const {
    const std::string p = normalize(object);
    if (!linkExists(p))
      throw std::runtime_error("Hdf5RunLog " + path + ": no group or dataset '" + p + "'");
    const H5O_type_t type = objectType(p);
    if (type == H5O_TYPE_GROUP) return OpenObject(file.openGroup(p));
    if (type == H5O_TYPE_DATASET) return OpenObject(file.openDataSet(p));
    throw std::runtime_error("Hdf5RunLog " + path + ": '" + p +
                             "' is neither a group nor a dataset");
  }

  H5::DataSet openDataSet(const std::string& normalized) const {
    if (!linkExists(normalized))
      throw std::runtime_error("Hdf5RunLog " + path + ": no dataset '" + normalized + "'");
    if (objectType(normalized) != H5O_TYPE_DATASET)
      throw std::runtime_error("Hdf5RunLog " + path + ": '" + normalized +
                               "' is a group, expected a dataset");
    return file.openDataSet(normalized);
  }

  void ensureGroup(const std::string& normalized) {
    std::string prefix;
    for (const auto& part : components(normalized)) {
      prefix += "/" + part;
      if (linkExists(prefix)) {
        if (objectType(prefix) != H5O_TYPE_GROUP)
          throw std::runtime_error("Hdf5RunLog " + path + ": '" + prefix +
                                   "' exists and is not a group");
        continue;
      }
      file.createGroup(prefix);
    }
  }

  // Removes an existing dataset so that it can be written anew.
  void removeIfExists(const std::string& normalized) {
    if (linkExists(normalized)) file.unlink(normalized);
  }

  std::vector<std::string> tableColumns(const H5::DataSet& ds, const std::string& name) const {
    if (ds.getTypeClass() != H5T_COMPOUND)
      throw std::runtime_error("Hdf5RunLog " + path + ": dataset '" + name +
                               "' is not a table (compound type)");
    const H5::CompType type = ds.getCompType();
    std::vector<std::string> cols;
    for (int i = 0; i < type.getNmembers(); ++i) cols.push_back(type.getMemberName(i));
    return cols;
  }

  static H5::CompType rowType(const std::vector<std::string>& columns) {
    H5::CompType type(sizeof(double) * columns.size());
    for (size_t j = 0; j < columns.size(); ++j)
      type.insertMember(columns[j], sizeof(double) * j, H5::PredType::NATIVE_DOUBLE);
    return type;
  }
};

Hdf5RunLog::Hdf5RunLog(const std::string& path, Mode mode) : impl_(std::make_unique<Impl>()) {
  H5::Exception::dontPrint();
  impl_->path = path;
  impl_->mode = mode;
  if (mode != Mode::ReadOnly) impl_->lockForWriting();  // ~Impl unlocks, also if this throws
  const bool exists = fileExists(path);
  try {
    switch (mode) {
      case Mode::Create:
        if (exists)
          throw std::runtime_error("Hdf5RunLog: " + path +
                                   " already exists (pick a fresh run folder, or resume)");
        impl_->file = H5::H5File(path, H5F_ACC_EXCL, H5::FileCreatPropList::DEFAULT, inMemory());
        break;
      case Mode::Append:
        impl_->file = H5::H5File(path, exists ? H5F_ACC_RDWR : H5F_ACC_EXCL,
                                 H5::FileCreatPropList::DEFAULT, inMemory());
        break;
      case Mode::ReadOnly:
        if (!exists) throw std::runtime_error("Hdf5RunLog: " + path + " does not exist");
        if (UnlockedLogReads::active()) {
          H5::FileAccPropList access;
          H5Pset_file_locking(access.getId(), false, true);
          impl_->file = H5::H5File(path, H5F_ACC_RDONLY, H5::FileCreatPropList::DEFAULT, access);
        } else {
          impl_->file = H5::H5File(path, H5F_ACC_RDONLY);
        }
        break;
    }
  } catch (const H5::Exception& e) {
    throw std::runtime_error("Hdf5RunLog: cannot open " + path + " (" +
                             (exists ? "not an HDF5 file, or locked by another process"
                                     : "cannot create it") +
                             "): " + e.getDetailMsg());
  }
  // A new log is on disk from the start, as an empty HDF5 file.
  if (mode != Mode::ReadOnly && !exists) impl_->guarded("create the file", [&] { impl_->commit(); });
}

UnlockedLogReads::UnlockedLogReads() { ++unlocked_log_reads; }
UnlockedLogReads::~UnlockedLogReads() { --unlocked_log_reads; }
bool UnlockedLogReads::active() { return unlocked_log_reads > 0; }

Hdf5RunLog::~Hdf5RunLog() {
  if (!impl_) return;
  try {
    impl_->file.close();
  } catch (...) {
    // Never throw from a destructor; every write was committed to the file when it was made.
  }
}

Hdf5RunLog::Hdf5RunLog(Hdf5RunLog&&) noexcept = default;
Hdf5RunLog& Hdf5RunLog::operator=(Hdf5RunLog&&) noexcept = default;

const std::string& Hdf5RunLog::path() const { return impl_->path; }

void Hdf5RunLog::createGroup(const std::string& group) {
  impl_->requireWritable("create group '" + group + "'");
  impl_->guarded("create group '" + group + "'", [&] {
    impl_->ensureGroup(normalize(group));
    impl_->commit();
  });
}

void Hdf5RunLog::remove(const std::string& path) {
  const std::string p = normalize(path);
  impl_->requireWritable("remove '" + p + "'");
  if (p == "/") throw std::invalid_argument("Hdf5RunLog " + impl_->path + ": cannot remove '/'");
  impl_->guarded("remove '" + p + "'", [&] {
    if (!impl_->linkExists(p)) return;
    impl_->file.unlink(p);
    impl_->commit();
  });
}

bool Hdf5RunLog::exists(const std::string& path) const {
  return impl_->guarded("look up '" + path + "'", [&] { return impl_->linkExists(normalize(path)); });
}

std::vector<std::string> Hdf5RunLog::children(const std::string& group) const {
  const std::string p = normalize(group);
  return impl_->guarded("list '" + p + "'", [&] {
    if (!impl_->linkExists(p) || impl_->objectType(p) != H5O_TYPE_GROUP)
      throw std::runtime_error("Hdf5RunLog " + impl_->path + ": no group '" + p + "'");
    H5::Group g = impl_->file.openGroup(p);
    std::vector<std::string> names;
    for (hsize_t i = 0; i < g.getNumObjs(); ++i) names.push_back(g.getObjnameByIdx(i));
    std::sort(names.begin(), names.end());
    return names;
  });
}

void Hdf5RunLog::setAttribute(const std::string& object, const std::string& name,
                              const AttributeValue& value) {
  impl_->requireWritable("set attribute '" + name + "' on '" + object + "'");
  impl_->guarded("set attribute '" + name + "' on '" + object + "'", [&] {
    const std::string p = normalize(object);
    if (!impl_->linkExists(p)) impl_->ensureGroup(p);
    auto obj = impl_->openObject(p);
    if (obj->attrExists(name)) obj->removeAttr(name);
    const H5::DataSpace scalar(H5S_SCALAR);
    if (const auto* s = std::get_if<std::string>(&value)) {
      const H5::StrType type = utf8VariableString();
      H5::Attribute attr = obj->createAttribute(name, type, scalar);
      attr.write(type, *s);
    } else if (const auto* d = std::get_if<double>(&value)) {
      H5::Attribute attr = obj->createAttribute(name, H5::PredType::NATIVE_DOUBLE, scalar);
      attr.write(H5::PredType::NATIVE_DOUBLE, d);
    } else {
      const int64_t v = std::get<int64_t>(value);
      H5::Attribute attr = obj->createAttribute(name, H5::PredType::NATIVE_INT64, scalar);
      attr.write(H5::PredType::NATIVE_INT64, &v);
    }
    impl_->commit();
  });
}

namespace {

AttributeValue readAttribute(const H5::Attribute& attr, const std::string& where) {
  if (attr.getSpace().getSimpleExtentNpoints() != 1)
    throw std::runtime_error(where + " is an array; only scalar attributes are supported");
  switch (attr.getTypeClass()) {
    case H5T_STRING: {
      std::string s;
      attr.read(attr.getStrType(), s);
      return s;
    }
    case H5T_FLOAT: {
      double d = 0;
      attr.read(H5::PredType::NATIVE_DOUBLE, &d);
      return d;
    }
    case H5T_INTEGER: {
      int64_t v = 0;
      attr.read(H5::PredType::NATIVE_INT64, &v);
      return v;
    }
    default:
      throw std::runtime_error(where + " has an unsupported type (expected string, float or "
                               "integer)");
  }
}

}  // namespace

std::optional<AttributeValue> Hdf5RunLog::attribute(const std::string& object,
                                                    const std::string& name) const {
  return impl_->guarded("read attribute '" + name + "' of '" + object + "'",
                        [&]() -> std::optional<AttributeValue> {
                          auto obj = impl_->openObject(object);
                          if (!obj->attrExists(name)) return std::nullopt;
                          return readAttribute(obj->openAttribute(name),
                                               impl_->path + ":" + normalize(object) + "@" + name);
                        });
}

std::map<std::string, AttributeValue> Hdf5RunLog::attributes(const std::string& object) const {
  return impl_->guarded("read attributes of '" + object + "'", [&] {
    auto obj = impl_->openObject(object);
    std::map<std::string, AttributeValue> out;
    const int n = obj->getNumAttrs();
    for (int i = 0; i < n; ++i) {
      H5::Attribute attr = obj->openAttribute(static_cast<unsigned>(i));
      const std::string name = attr.getName();
      out[name] = readAttribute(attr, impl_->path + ":" + normalize(object) + "@" + name);
    }
    return out;
  });
}

namespace {

[[noreturn]] void missingAttribute(const std::string& file, const std::string& object,
                                   const std::string& name, const char* expected,
                                   bool present) {
  throw std::runtime_error("Hdf5RunLog " + file + ": attribute '" + name + "' of '" +
                           normalize(object) + "' " +
                           (present ? std::string("is not ") + expected : "is missing") +
                           (present ? "" : std::string(" (expected ") + expected + ")"));
}

}  // namespace

std::string Hdf5RunLog::stringAttribute(const std::string& object, const std::string& name) const {
  const auto v = attribute(object, name);
  if (!v || !std::holds_alternative<std::string>(*v))
    missingAttribute(impl_->path, object, name, "a string", v.has_value());
  return std::get<std::string>(*v);
}

double Hdf5RunLog::doubleAttribute(const std::string& object, const std::string& name) const {
  const auto v = attribute(object, name);
  if (v && std::holds_alternative<int64_t>(*v)) return static_cast<double>(std::get<int64_t>(*v));
  if (!v || !std::holds_alternative<double>(*v))
    missingAttribute(impl_->path, object, name, "a number", v.has_value());
  return std::get<double>(*v);
}

int64_t Hdf5RunLog::intAttribute(const std::string& object, const std::string& name) const {
  const auto v = attribute(object, name);
  if (!v || !std::holds_alternative<int64_t>(*v))
    missingAttribute(impl_->path, object, name, "an integer", v.has_value());
  return std::get<int64_t>(*v);
}

void Hdf5RunLog::createTable(const std::string& dataset, const std::vector<std::string>& columns) {
  const std::string p = normalize(dataset);
  impl_->requireWritable("create table '" + p + "'");
  if (columns.empty())
    throw std::invalid_argument("Hdf5RunLog: table '" + p + "' needs at least one column");
  std::set<std::string> seen;
  for (const auto& c : columns) {
    if (c.empty() || !seen.insert(c).second)
      throw std::invalid_argument("Hdf5RunLog: table '" + p + "': column names must be "
                                  "non-empty and distinct, got '" + c + "' twice or empty");
  }
  impl_->guarded("create table '" + p + "'", [&] {
    if (impl_->linkExists(p)) {
      const auto existing = impl_->tableColumns(impl_->openDataSet(p), p);
      if (existing != columns) {
        std::string have, want;
        for (const auto& c : existing) have += (have.empty() ? "" : ",") + c;
        for (const auto& c : columns) want += (want.empty() ? "" : ",") + c;
        throw std::runtime_error("Hdf5RunLog " + impl_->path + ": table '" + p +
                                 "' exists with columns (" + have + "), asked for (" + want +
                                 ")");
      }
      return;
    }
    impl_->ensureGroup(parentOf(p));
    const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {kTableChunkRows};
    const H5::DataSpace space(1, dims, maxdims);
    H5::DSetCreatPropList props;
    props.setChunk(1, chunk);
    impl_->file.createDataSet(p, Impl::rowType(columns), space, props);
    impl_->commit();
  });
}

void Hdf5RunLog::appendRow(const std::string& dataset, const std::vector<double>& values) {
  appendRows(dataset, {values});
}

void Hdf5RunLog::appendRows(const std::string& dataset,
                            const std::vector<std::vector<double>>& rows) {
  const std::string p = normalize(dataset);
  impl_->requireWritable("append to table '" + p + "'");
  if (rows.empty()) return;
  impl_->guarded("append to table '" + p + "'", [&] {
    H5::DataSet ds = impl_->openDataSet(p);
    const auto columns = impl_->tableColumns(ds, p);
    std::vector<double> buffer;
    buffer.reserve(rows.size() * columns.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].size() != columns.size())
        throw std::invalid_argument("Hdf5RunLog " + impl_->path + ": table '" + p + "' has " +
                                    std::to_string(columns.size()) + " columns, row " +
                                    std::to_string(i) + " has " +
                                    std::to_string(rows[i].size()) + " values");
      buffer.insert(buffer.end(), rows[i].begin(), rows[i].end());
    }
    hsize_t old_size[1];
    ds.getSpace().getSimpleExtentDims(old_size);
    const hsize_t new_size[1] = {old_size[0] + rows.size()};
    ds.extend(new_size);
    H5::DataSpace file_space = ds.getSpace();
    const hsize_t count[1] = {rows.size()};
    file_space.selectHyperslab(H5S_SELECT_SET, count, old_size);
    const H5::DataSpace mem_space(1, count);
    ds.write(buffer.data(), Impl::rowType(columns), mem_space, file_space);
    impl_->commit();
  });
}

Table Hdf5RunLog::readTable(const std::string& dataset) const {
  const std::string p = normalize(dataset);
  return impl_->guarded("read table '" + p + "'", [&] {
    H5::DataSet ds = impl_->openDataSet(p);
    Table table;
    table.columns = impl_->tableColumns(ds, p);
    hsize_t n[1];
    ds.getSpace().getSimpleExtentDims(n);
    const size_t width = table.columns.size();
    std::vector<double> buffer(n[0] * width);
    // Reading through a native-double compound converts whatever the file stored.
    if (n[0] > 0) ds.read(buffer.data(), Impl::rowType(table.columns));
    table.rows.resize(n[0]);
    for (size_t i = 0; i < n[0]; ++i)
      table.rows[i].assign(buffer.begin() + i * width, buffer.begin() + (i + 1) * width);
    return table;
  });
}

void Hdf5RunLog::writeArray(const std::string& dataset, const std::vector<double>& data,
                            const std::vector<uint64_t>& shape) {
  const std::string p = normalize(dataset);
  impl_->requireWritable("write array '" + p + "'");
  if (shape.empty() || shape.size() > 2)
    throw std::invalid_argument("Hdf5RunLog: array '" + p + "' must be 1-D or 2-D, got rank " +
                                std::to_string(shape.size()));
  const uint64_t count =
      std::accumulate(shape.begin(), shape.end(), uint64_t{1}, std::multiplies<uint64_t>());
  if (count != data.size())
    throw std::invalid_argument("Hdf5RunLog: array '" + p + "' has " +
                                std::to_string(data.size()) + " values, its shape holds " +
                                std::to_string(count));
  impl_->guarded("write array '" + p + "'", [&] {
    impl_->removeIfExists(p);
    impl_->ensureGroup(parentOf(p));
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    const H5::DataSpace space(static_cast<int>(dims.size()), dims.data());
    H5::DataSet ds = impl_->file.createDataSet(p, H5::PredType::NATIVE_DOUBLE, space);
    if (!data.empty()) ds.write(data.data(), H5::PredType::NATIVE_DOUBLE);
    impl_->commit();
  });
}

std::vector<double> Hdf5RunLog::readArray(const std::string& dataset,
                                          std::vector<uint64_t>* shape) const {
  const std::string p = normalize(dataset);
  return impl_->guarded("read array '" + p + "'", [&] {
    H5::DataSet ds = impl_->openDataSet(p);
    if (ds.getTypeClass() != H5T_FLOAT && ds.getTypeClass() != H5T_INTEGER)
      throw std::runtime_error("Hdf5RunLog " + impl_->path + ": dataset '" + p +
                               "' is not a numeric array");
    const H5::DataSpace space = ds.getSpace();
    const int rank = space.getSimpleExtentNdims();
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    space.getSimpleExtentDims(dims.data());
    std::vector<double> data(static_cast<size_t>(space.getSimpleExtentNpoints()));
    if (!data.empty()) ds.read(data.data(), H5::PredType::NATIVE_DOUBLE);
    if (shape) shape->assign(dims.begin(), dims.end());
    return data;
  });
}

void Hdf5RunLog::writeText(const std::string& dataset, const std::string& text) {
  const std::string p = normalize(dataset);
  impl_->requireWritable("write text '" + p + "'");
  impl_->guarded("write text '" + p + "'", [&] {
    impl_->removeIfExists(p);
    impl_->ensureGroup(parentOf(p));
    const H5::StrType type = utf8VariableString();
    H5::DataSet ds = impl_->file.createDataSet(p, type, H5::DataSpace(H5S_SCALAR));
    ds.write(text, type);
    impl_->commit();
  });
}

std::string Hdf5RunLog::readText(const std::string& dataset) const {
  const std::string p = normalize(dataset);
  return impl_->guarded("read text '" + p + "'", [&] {
    H5::DataSet ds = impl_->openDataSet(p);
    if (ds.getTypeClass() != H5T_STRING)
      throw std::runtime_error("Hdf5RunLog " + impl_->path + ": dataset '" + p +
                               "' is not text");
    std::string text;
    ds.read(text, ds.getStrType());
    return text;
  });
}

void Hdf5RunLog::flush() {
  if (impl_->mode == Mode::ReadOnly) return;
  impl_->guarded("flush", [&] { impl_->commit(); });
}

void Hdf5RunLog::sync() {
  if (impl_->mode == Mode::ReadOnly) return;
  impl_->guarded("sync", [&] { impl_->commit(/*durable=*/true); });
  // The rename is durable once the folder is synced.
  const std::string folder = parentFolder(impl_->path);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) throw std::runtime_error(folder + ": cannot open it to fsync");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw std::runtime_error(folder + ": fsync failed");
}

std::string utcTimestamp(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace recurlab::experiments
